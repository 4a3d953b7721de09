/// Something a schema does that a consumer cannot take as written: a keyword outside the
/// contract subset, a construct a grammar cannot express, a rule OpenAI's strict mode forbids,
/// or a constraint dropped from a wire form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Problem {
    /// JSON pointer into the schema (`""` for the root, `/properties/steps/items`).
    pub pointer: String,
    /// The keyword concerned, when there is one (`uniqueItems`, `additionalProperties`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// Why it is a problem, and what was done about it when something was.
    pub reason: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        match &self.keyword {
            Some(keyword) => write!(f, "{pointer}: `{keyword}`: {}", self.reason),
            None => write!(f, "{pointer}: {}", self.reason),
        }
    }
}

/// "a string", "an array": a word for the JSON type of `value`, for messages about a value
/// of the wrong kind.
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Appends one token to a JSON pointer, escaping `~` and `/` as RFC 6901 requires.
pub fn pointer_push(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    out.push('/');
    for ch in token.chars() {
        match ch {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(pointer_push("", "properties"), "/properties");
        assert_eq!(pointer_push("/properties", "a/b~c"), "/properties/a~1b~0c");
    }

    #[test]
    fn display_names_the_root_and_keyword() {
        let problem = Problem {
            pointer: String::new(),
            keyword: Some("uniqueItems".into()),
            reason: "outside the subset".into(),
        };
        assert_eq!(
            problem.to_string(),
            "(root): `uniqueItems`: outside the subset"
        );
    }
}
