//! Statistics over HTTP (filled in by its own change).
