//! A tiny GBNF reader for the engine emulator: parses a grammar the way llama-server would
//! accept it (rules `name ::= ...`, string literals, character classes, grouping, `|`, `?`, `*`,
//! `+`, `{m,n}`, `#` comments) and produces the shortest member of its language by always
//! taking the first alternative and the fewest repetitions. A grammar that does not parse, or
//! that names an undefined rule, is an error, as in llama-server ("failed to parse grammar").

use std::collections::HashMap;

#[derive(Clone, Debug)]
enum Node {
    Literal(String),
    Class(Vec<char>, bool),
    Rule(String),
    Sequence(Vec<Node>),
    Choice(Vec<Node>),
    Repeat(Box<Node>, u32),
}

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    _text: &'a str,
}

impl<'a> Parser<'a> {
    fn skip_space(&mut self, newlines: bool) {
        while let Some(&c) = self.chars.get(self.at) {
            if c == '#' {
                while self.chars.get(self.at).is_some_and(|&c| c != '\n') {
                    self.at += 1;
                }
            } else if c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n') {
                self.at += 1;
            } else {
                break;
            }
        }
    }

    fn identifier(&mut self) -> Option<String> {
        let start = self.at;
        while self
            .chars
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        {
            self.at += 1;
        }
        (self.at > start).then(|| self.chars[start..self.at].iter().collect())
    }

    /// Whether the next thing is `name ::=` (a new rule starts).
    fn at_rule_start(&mut self) -> bool {
        let saved = self.at;
        self.skip_space(true);
        let starts = self.identifier().is_some() && {
            self.skip_space(false);
            self.chars[self.at..].starts_with(&[':', ':', '='])
        };
        self.at = saved;
        starts
    }

    fn escaped(&mut self) -> Result<char, String> {
        self.at += 1;
        let c = *self.chars.get(self.at).ok_or("unfinished escape")?;
        self.at += 1;
        Ok(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            other => other,
        })
    }

    fn alternatives(&mut self, nested: bool) -> Result<Node, String> {
        let mut choices = vec![self.sequence(nested)?];
        loop {
            self.skip_space(nested);
            if self.chars.get(self.at) == Some(&'|') {
                self.at += 1;
                choices.push(self.sequence(nested)?);
            } else if !nested && self.chars.get(self.at) == Some(&'\n') && !self.at_rule_start() {
                // A continuation line.
                self.at += 1;
                let saved = self.at;
                self.skip_space(true);
                if self.chars.get(self.at) == Some(&'|') {
                    continue;
                }
                self.at = saved;
                if self.at >= self.chars.len() {
                    break;
                }
                let more = self.sequence(nested)?;
                if let Some(Node::Sequence(items)) = choices.last_mut() {
                    items.push(more);
                }
            } else {
                break;
            }
        }
        Ok(if choices.len() == 1 {
            choices.pop().unwrap()
        } else {
            Node::Choice(choices)
        })
    }

    fn sequence(&mut self, nested: bool) -> Result<Node, String> {
        let mut items = Vec::new();
        loop {
            self.skip_space(nested);
            let Some(&c) = self.chars.get(self.at) else {
                break;
            };
            let item = match c {
                '"' => {
                    self.at += 1;
                    let mut text = String::new();
                    loop {
                        match self.chars.get(self.at) {
                            None | Some('\n') => return Err("unterminated string".into()),
                            Some('"') => {
                                self.at += 1;
                                break;
                            }
                            Some('\\') => text.push(self.escaped()?),
                            Some(&c) => {
                                text.push(c);
                                self.at += 1;
                            }
                        }
                    }
                    Node::Literal(text)
                }
                '[' => {
                    self.at += 1;
                    let negated = self.chars.get(self.at) == Some(&'^');
                    if negated {
                        self.at += 1;
                    }
                    let mut members = Vec::new();
                    loop {
                        match self.chars.get(self.at) {
                            None => return Err("unterminated character class".into()),
                            Some(']') => {
                                self.at += 1;
                                break;
                            }
                            Some('\\') => members.push(self.escaped()?),
                            Some(&c) => {
                                members.push(c);
                                self.at += 1;
                            }
                        }
                    }
                    Node::Class(members, negated)
                }
                '(' => {
                    self.at += 1;
                    let inner = self.alternatives(true)?;
                    self.skip_space(true);
                    if self.chars.get(self.at) != Some(&')') {
                        return Err("missing )".into());
                    }
                    self.at += 1;
                    inner
                }
                c if c.is_ascii_alphanumeric() || c == '-' || c == '_' => {
                    if self.at_rule_start() {
                        break;
                    }
                    Node::Rule(self.identifier().unwrap())
                }
                '|' | ')' | '\n' => break,
                other => return Err(format!("unexpected `{other}`")),
            };
            items.push(self.postfix(item)?);
        }
        Ok(Node::Sequence(items))
    }

    fn postfix(&mut self, item: Node) -> Result<Node, String> {
        Ok(match self.chars.get(self.at) {
            Some('?') | Some('*') => {
                self.at += 1;
                Node::Repeat(Box::new(item), 0)
            }
            Some('+') => {
                self.at += 1;
                Node::Repeat(Box::new(item), 1)
            }
            Some('{') => {
                let close = self.chars[self.at..]
                    .iter()
                    .position(|c| *c == '}')
                    .ok_or("unterminated {")?;
                let inside: String = self.chars[self.at + 1..self.at + close].iter().collect();
                self.at += close + 1;
                let minimum = inside.split(',').next().unwrap_or("").trim();
                Node::Repeat(
                    Box::new(item),
                    minimum.parse().map_err(|_| "bad repetition")?,
                )
            }
            _ => item,
        })
    }
}

/// Parses `grammar` and returns its shortest member starting from `root`.
pub fn shortest(grammar: &str) -> Result<String, String> {
    let mut parser = Parser {
        chars: grammar.chars().collect(),
        at: 0,
        _text: grammar,
    };
    let mut rules = HashMap::new();
    loop {
        parser.skip_space(true);
        if parser.at >= parser.chars.len() {
            break;
        }
        let name = parser.identifier().ok_or("expected a rule name")?;
        parser.skip_space(false);
        if !parser.chars[parser.at..].starts_with(&[':', ':', '=']) {
            return Err(format!("expected ::= after {name}"));
        }
        parser.at += 3;
        let body = parser.alternatives(false)?;
        rules.insert(name, body);
    }
    let root = rules.get("root").ok_or("no root rule")?;
    let mut out = String::new();
    emit(root, &rules, &mut out, 0)?;
    Ok(out)
}

fn emit(
    node: &Node,
    rules: &HashMap<String, Node>,
    out: &mut String,
    depth: u32,
) -> Result<(), String> {
    if depth > 200 {
        return Err("grammar recursion too deep".into());
    }
    match node {
        Node::Literal(text) => out.push_str(text),
        Node::Class(members, negated) => {
            let chosen = if *negated {
                ('a'..='z')
                    .find(|c| !members.contains(c))
                    .ok_or("empty class")?
            } else {
                *members.first().ok_or("empty class")?
            };
            out.push(chosen);
        }
        Node::Rule(name) => {
            let rule = rules
                .get(name)
                .ok_or_else(|| format!("undefined rule {name}"))?;
            emit(rule, rules, out, depth + 1)?;
        }
        Node::Sequence(items) => {
            for item in items {
                emit(item, rules, out, depth + 1)?;
            }
        }
        Node::Choice(choices) => emit(&choices[0], rules, out, depth + 1)?,
        Node::Repeat(item, minimum) => {
            for _ in 0..*minimum {
                emit(item, rules, out, depth + 1)?;
            }
        }
    }
    Ok(())
}
