//! Installs against a loopback file server that speaks HTTP Range, serving
//! a tiny Kraken 2 database archive built here from the database the
//! operator proof builds with Debian's `kraken2-build`.

mod install;
mod support;
