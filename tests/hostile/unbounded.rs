//! Issue 25, item 5. Nothing hangs or grows without bound: FIFOs, endless streams, shrinking maps, decompression bombs.
