//! Issue 25, item 3. --sysroot: a foreign root's programs are not run unless asked, and then scrubbed and resolved inside the root.
