//! Unit tests of the parser, the recognizer and the derivation, each on its own.

mod derive;
mod parse;
mod recognize;
