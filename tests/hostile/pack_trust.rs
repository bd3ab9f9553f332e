//! Issue 25, item 1. Root never runs another user's pack (or settings file): open once, fstat the descriptor, vet the directories.
