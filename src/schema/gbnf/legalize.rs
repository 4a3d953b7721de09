//! Keeping every repetition inside llama.cpp's limits.
//!
//! llama.cpp (`src/llama-grammar.cpp`, `parse_sequence`) refuses a repetition count above
//! `MAX_REPETITION_THRESHOLD` (2000), and a repetition whose operand, counted in rules the
//! parser generates for it, times the count reaches 2000. Counts above [`DIRECT_LIMIT`] are
//! therefore built from a rule that matches [`CHUNK`] copies (exactly: `x{0,2500}` is
//! `chunk? x{0,999} | chunk{2} x{0,500}`), and a group whose rule count times its repetition
//! would come near the limit is moved into a rule of its own (a rule reference counts as one).

use super::builder::Builder;
use super::expr::Expr;

/// The largest count a single `{m,n}` of one rule or character class is given (llama.cpp
/// refuses 2000); larger counts are built from chunks.
pub(crate) const DIRECT_LIMIT: u64 = 1999;

/// How many repetitions one chunk rule matches.
pub(crate) const CHUNK: u64 = 1000;

/// llama.cpp refuses a repetition when (rules in its operand) × (count) reaches 2000; this
/// keeps a margin below that.
const RULE_BUDGET: u64 = 1000;

impl Builder {
    /// Rewrites `expr` in place so that every repetition stays inside llama.cpp's limits;
    /// repetitions that already are (nearly all) are left as they are.
    pub(super) fn legalize(&mut self, expr: &mut Expr, hint: &str) {
        match expr {
            Expr::Seq(items) => {
                let mut nested = false;
                for item in items.iter_mut() {
                    self.legalize(item, hint);
                    nested |= matches!(item, Expr::Seq(_));
                }
                // A chunked repetition became a sequence: keep sequences flat.
                if nested {
                    *expr = Expr::seq(std::mem::take(items));
                }
            }
            Expr::Alt(items) => {
                for item in items.iter_mut() {
                    self.legalize(item, hint);
                }
            }
            Expr::Repeat(inner, min, max) => {
                self.legalize(inner, hint);
                let (min, max) = (*min, *max);
                if !self.is_legal(inner, min, max) {
                    let inner = std::mem::replace(inner.as_mut(), Expr::Empty);
                    *expr = self.legal_repeat(inner, min, max, hint);
                }
            }
            _ => {}
        }
    }

    /// Whether `inner{min,max}` is within llama.cpp's limits as it is.
    fn is_legal(&self, inner: &Expr, min: u64, max: Option<u64>) -> bool {
        let big = min > DIRECT_LIMIT || max.is_some_and(|max| max > DIRECT_LIMIT);
        !big && operand_rules(inner).saturating_mul(total_rules(min, max)) < RULE_BUDGET
    }

    fn legal_repeat(&mut self, inner: Expr, min: u64, max: Option<u64>, hint: &str) -> Expr {
        let big = min > DIRECT_LIMIT || max.is_some_and(|max| max > DIRECT_LIMIT);
        let inner = if (big && !inner.is_atom())
            || operand_rules(&inner).saturating_mul(total_rules(min, max)) >= RULE_BUDGET
        {
            self.hoist(inner, hint)
        } else {
            inner
        };
        if !big {
            return Expr::Repeat(Box::new(inner), min, max);
        }
        // inner is an atom here.
        let exact = self.exactly(&inner, min, hint);
        let rest = match max {
            None => Expr::Repeat(Box::new(inner), 0, None),
            Some(max) => self.up_to(&inner, max - min, hint),
        };
        Expr::seq([exact, rest])
    }

    /// Exactly `count` copies of the atom `atom`.
    fn exactly(&mut self, atom: &Expr, count: u64, hint: &str) -> Expr {
        if count <= DIRECT_LIMIT {
            return Expr::repeat(atom.clone(), count, Some(count));
        }
        let chunk = self.chunk_rule(atom, hint);
        let whole = self.exactly(&Expr::Ref(chunk), count / CHUNK, hint);
        Expr::seq([
            whole,
            Expr::repeat(atom.clone(), count % CHUNK, Some(count % CHUNK)),
        ])
    }

    /// Between zero and `count` copies of the atom `atom`, as a rule reference when chunked.
    fn up_to(&mut self, atom: &Expr, count: u64, hint: &str) -> Expr {
        if count <= DIRECT_LIMIT {
            return Expr::repeat(atom.clone(), 0, Some(count));
        }
        // A length below q·CHUNK is (a < q whole chunks, then fewer than CHUNK); a length from
        // q·CHUNK to count is (q chunks, then at most the remainder). The two are disjoint.
        let chunk = self.chunk_rule(atom, hint);
        let quotient = count / CHUNK;
        let remainder = count % CHUNK;
        let below = Expr::seq([
            self.up_to(&Expr::Ref(chunk), quotient - 1, hint),
            Expr::repeat(atom.clone(), 0, Some(CHUNK - 1)),
        ]);
        let above = Expr::seq([
            self.exactly(&Expr::Ref(chunk), quotient, hint),
            Expr::repeat(atom.clone(), 0, Some(remainder)),
        ]);
        let mut body = Expr::alt([below, above]);
        self.legalize(&mut body, hint);
        let index = self.declare(&format!("{hint}-upto-{count}"), &[]);
        self.define(index, body);
        Expr::Ref(index)
    }

    /// The rule matching exactly [`CHUNK`] copies of `atom`.
    fn chunk_rule(&mut self, atom: &Expr, hint: &str) -> usize {
        if let Some(&index) = self.chunks.get(atom) {
            return index;
        }
        let base = match atom {
            Expr::Ref(index) => self.rules[*index].name.clone(),
            _ => hint.to_owned(),
        };
        let index = self.declare(&format!("{base}-x{CHUNK}"), &[]);
        self.define(
            index,
            Expr::Repeat(Box::new(atom.clone()), CHUNK, Some(CHUNK)),
        );
        self.chunks.insert(atom.clone(), index);
        index
    }

    /// Moves `expr` into a rule of its own and returns a reference to it.
    fn hoist(&mut self, expr: Expr, hint: &str) -> Expr {
        if expr.is_atom() {
            return expr;
        }
        let index = self.declare(&format!("{hint}-part"), &[]);
        self.define(index, expr);
        Expr::Ref(index)
    }
}

/// The rules llama.cpp counts for the operand of a repetition: one for an atom, else the
/// group and what it generates.
fn operand_rules(inner: &Expr) -> u64 {
    if inner.is_atom() {
        1
    } else {
        1 + generated_rules(inner)
    }
}

/// The count llama.cpp multiplies the operand's rules by.
fn total_rules(min: u64, max: Option<u64>) -> u64 {
    match max {
        Some(max) if max > 0 => max,
        _ => min.max(1),
    }
}

/// How many rules llama.cpp's parser creates (or may create, for a first mention of a rule
/// name) for `expr` written inside a group.
fn generated_rules(expr: &Expr) -> u64 {
    match expr {
        Expr::Never | Expr::Empty | Expr::Literal(_) | Expr::Class(_) => 0,
        Expr::Ref(_) => 1,
        Expr::Seq(items) => items.iter().map(nested_rules).sum(),
        Expr::Alt(items) => items.iter().map(generated_rules).sum(),
        Expr::Repeat(inner, min, max) => {
            let optional = match max {
                None => 1,
                Some(max) => max - min,
            };
            nested_rules(inner) + optional
        }
    }
}

/// Like [`generated_rules`], for an expression that appears as one element of a sequence:
/// an alternation there is a parenthesised group, which is a rule of its own.
fn nested_rules(expr: &Expr) -> u64 {
    match expr {
        Expr::Alt(_) | Expr::Seq(_) => 1 + generated_rules(expr),
        other => generated_rules(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_repetitions_are_chunked() {
        let mut builder = Builder::new();
        let item = builder.declare("item", &[]);
        builder.define(item, Expr::lit("x"));
        builder.define(0, Expr::repeat(Expr::Ref(item), 0, Some(2500)));
        let text = builder.finish();
        assert_eq!(
            text,
            "root ::= root-upto-2500\n\
             root-upto-2500 ::= item-x1000? item{0,999} | item-x1000{2} item{0,500}\n\
             item-x1000 ::= item{1000}\n\
             item ::= \"x\"\n"
        );
    }

    #[test]
    fn heavy_groups_are_hoisted() {
        let mut builder = Builder::new();
        let item = builder.declare("item", &[]);
        builder.define(item, Expr::lit("x"));
        let group = Expr::seq([Expr::lit(","), Expr::Ref(item)]);
        builder.define(0, Expr::repeat(group, 0, Some(999)));
        let text = builder.finish();
        assert_eq!(
            text,
            "root ::= root-part{0,999}\nroot-part ::= \",\" item\nitem ::= \"x\"\n"
        );
    }
}
