//! What a linter, the grammar derivation or a projection reports about a schema: a
//! [`Problem`] at a JSON pointer, and the words for a value's JSON type in messages.

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
        let pointer = super::display_pointer(&self.pointer);
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

#[cfg(test)]
mod tests {
    use super::*;

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
