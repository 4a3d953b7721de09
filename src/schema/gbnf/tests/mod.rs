//! Unit tests of the parser, the recognizer and the derivation, each on its own; and the proof
//! that derived grammars are exact (`exactness`), over instances made by `instances` and
//! written, with their near misses, by `texts`.

mod derive;
mod exactness;
mod instances;
mod parse;
mod recognize;
mod texts;
