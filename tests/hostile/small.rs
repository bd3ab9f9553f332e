//! Issue 25, item 7. Smaller items: terminal escapes, merge determinism, setsid children, relative roots, closed stdout, caps said, truncated .gz, non-UTF-8 arguments, inspect depth.
