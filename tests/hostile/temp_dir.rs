//! Issue 25, item 4. The doctor's own failures (no temp dir, a probe it could not start) are errors, never verdicts.
