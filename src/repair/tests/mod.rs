//! The repair ladder through its public functions: the corpus of answers and what each becomes,
//! the ladder's checks a corpus row cannot express, properties over generated inputs, `$ref`
//! handling across coercion, validation and the grammar, and hostile inputs of any size.

pub(crate) mod corpus;
mod ladder;
mod property;
mod ref_escapes;
mod robustness;
