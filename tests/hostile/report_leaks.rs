//! Issue 25, item 6. report scrubs secrets by value as well as by name.
