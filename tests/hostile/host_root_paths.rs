//! Issue 25, item 2. --host-root: every path is resolved inside the host root before it reaches a child.
