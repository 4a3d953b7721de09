//! Calls whose tool name is not inside the JSON: the name written just before the arguments
//! object, and calls written as Python.
//!
//! - A name before the object: ReAct agents write `Action: read_file` then
//!   `Action Input: {"path": "a"}`; templates leak `functions.read_file:0 {...}` (Kimi, the
//!   OpenAI harmony format) or DeepSeek's `function<｜tool▁sep｜>read_file` then a fenced object.
//!   [`name_before`] finds a known tool's name at most [`NAME_WINDOW`] bytes before an object
//!   that is not a call by itself.
//! - Python: Llama 3.2's lightweight models answer `[read_file(path="a")]`, Gemma writes
//!   ` ```tool_code ` blocks with the same, and many models copy that style from their training.
//!   [`python_calls`] reads `NAME(key=value, ...)` where NAME is a known tool (positional
//!   arguments take the schema's properties in order), turning Python literals (quoted strings
//!   of every kind, `True`/`False`/`None`) into a JSON object text for the repair ladder.
//!
//! Only known tool names count, so prose that mentions a function is not a call, and only
//! arguments that read as literals: `read_file(path)` (a variable) is prose too.

/// How far before an object a tool's name may stand (`Action Input: ` and template tokens fit).
pub(super) const NAME_WINDOW: usize = 80;

/// The known tool named in `text[floor..end]` closest before `end`, within [`NAME_WINDOW`]
/// bytes, with only separators between it and `end`: whitespace, punctuation, an index
/// (`:0`), a fence opener, `Action Input`, or a template token (`<|...|>`, `<｜...｜>`).
pub(super) fn name_before<'text>(
    text: &'text str,
    floor: usize,
    end: usize,
    is_tool: &dyn Fn(&str) -> bool,
) -> Option<&'text str> {
    let mut start = end.saturating_sub(NAME_WINDOW).max(floor);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let window = &text[start..end];
    let mut tokens: Vec<(usize, &str)> = Vec::new();
    let mut token_start = None;
    for (offset, ch) in window.char_indices() {
        let word = ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.');
        match (word, token_start) {
            (true, None) => token_start = Some(offset),
            (false, Some(from)) => {
                tokens.push((from, &window[from..offset]));
                token_start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = token_start {
        tokens.push((from, &window[from..]));
    }
    for &(offset, token) in tokens.iter().rev() {
        let token = token.trim_matches('.');
        if is_tool(token) {
            return Some(&window[offset..offset + token.len()]);
        }
        let separator = token.chars().all(|ch| ch.is_ascii_digit())
            || [
                "Action",
                "Input",
                "action_input",
                "json",
                "tool_code",
                "call",
                "arguments",
                "args",
            ]
            .iter()
            .any(|word| token.eq_ignore_ascii_case(word))
            || token.contains("tool")
            || token.contains("call")
            || token.contains("sep")
            || token.contains("begin")
            || token.contains("constrain")
            || token.contains("message");
        if !separator {
            return None;
        }
    }
    None
}

/// One call written as Python.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PythonCall<'text> {
    /// The name as written (possibly with a namespace such as `default_api.`).
    pub name: &'text str,
    /// The arguments as a JSON object text (for the repair ladder).
    pub arguments: String,
    /// Whether the text ends before the call's closing parenthesis.
    pub cut: bool,
    /// Whether some arguments were positional (read in the schema's property order).
    pub positional: bool,
}

/// Every `NAME(...)` in `text` whose NAME `is_tool` knows and whose arguments are literals.
/// `properties` gives a tool's property names in schema order (for positional arguments).
pub(super) fn python_calls<'text>(
    text: &'text str,
    is_tool: &dyn Fn(&str) -> bool,
    properties: &dyn Fn(&str) -> Vec<String>,
) -> Vec<PythonCall<'text>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find('(') {
        let open = at + offset;
        at = open + 1;
        let mut name_start = open;
        while name_start > 0
            && (bytes[name_start - 1].is_ascii_alphanumeric()
                || matches!(bytes[name_start - 1], b'_' | b'.'))
        {
            name_start -= 1;
        }
        let name = &text[name_start..open];
        if name.is_empty() || !is_tool(name) {
            continue;
        }
        let (inner, cut) = match closing_parenthesis(text, open) {
            Some(close) => (&text[open + 1..close], false),
            None => (&text[open + 1..], true),
        };
        let Some((arguments, positional)) = arguments_json(inner, &properties(name)) else {
            continue;
        };
        found.push(PythonCall {
            name,
            arguments,
            cut,
            positional,
        });
        if cut {
            break;
        }
        at = open + 1 + inner.len() + 1;
    }
    found
}

/// The `)` that closes the `(` at `open`, outside strings and nested brackets.
fn closing_parenthesis(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = open;
    while at < bytes.len() {
        match bytes[at] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (bytes[at] == b')').then_some(at);
                }
            }
            b'"' | b'\'' => at = python_string(text, at)?.1 - 1,
            _ => {}
        }
        at += 1;
    }
    None
}

/// The arguments `key=value, ...` as a JSON object text, and whether some were positional;
/// `None` when a value is not a literal or a positional argument has no property to go to.
fn arguments_json(inner: &str, properties: &[String]) -> Option<(String, bool)> {
    let mut members = Vec::new();
    let mut positional = false;
    for (index, part) in split_top_level(inner).into_iter().enumerate() {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        // `**{"key": value}`: the dict's members are keyword arguments.
        if let Some(unpacked) = part.strip_prefix("**") {
            let dict: serde_json::Value =
                serde_json::from_str(&literal_json(unpacked.trim())?).ok()?;
            for (key, value) in dict.as_object()? {
                members.push(format!(
                    "{}: {value}",
                    serde_json::to_string(key).expect("a string serializes")
                ));
            }
            continue;
        }
        let (key, value) = match keyword(part) {
            Some((key, value)) => (key.to_owned(), value),
            None => {
                positional = true;
                (properties.get(index)?.clone(), part)
            }
        };
        let value = literal_json(value.trim())?;
        members.push(format!(
            "{}: {value}",
            serde_json::to_string(&key).expect("a string serializes")
        ));
    }
    Some((format!("{{{}}}", members.join(", ")), positional))
}

/// `key = value` with an identifier key, outside any string.
fn keyword(part: &str) -> Option<(&str, &str)> {
    let equals = part.find('=')?;
    let key = part[..equals].trim();
    let value = &part[equals + 1..];
    let identifier = !key.is_empty()
        && key.chars().all(|ch| ch.is_alphanumeric() || ch == '_')
        && !key.starts_with(|ch: char| ch.is_ascii_digit());
    (identifier && !value.starts_with('=')).then_some((key, value))
}

/// `text` split at commas outside strings and brackets.
fn split_top_level(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let (mut depth, mut start, mut at) = (0usize, 0, 0);
    while at < bytes.len() {
        match bytes[at] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            b'"' | b'\'' => match python_string(text, at) {
                Some((_, end)) => at = end - 1,
                None => break,
            },
            _ => {}
        }
        at += 1;
    }
    parts.push(&text[start..]);
    parts
}

/// A Python literal (strings, numbers, `True`/`False`/`None`, lists, tuples, dicts of them)
/// as JSON text; `None` when it holds anything else (a name, a call, an operator).
fn literal_json(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = String::with_capacity(value.len());
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == b'"' || byte == b'\'' || (is_prefix(bytes, at) && at + 1 < bytes.len()) {
            if let Some((decoded, end)) = python_string(value, at) {
                out.push_str(&serde_json::to_string(&decoded).expect("a string serializes"));
                at = end;
                continue;
            }
            if byte == b'"' || byte == b'\'' {
                // An unterminated string (the text was cut): left for the ladder to call cut.
                out.push_str(&value[at..]);
                break;
            }
        }
        if byte.is_ascii_alphabetic() || byte == b'_' {
            let end = at
                + bytes[at..]
                    .iter()
                    .take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'_')
                    .count();
            let word = &value[at..end];
            let number_exponent = word
                .strip_prefix(['e', 'E'])
                .is_some_and(|rest| rest.chars().all(|ch| ch.is_ascii_digit()))
                && out.ends_with(|ch: char| ch.is_ascii_digit() || ch == '.');
            out.push_str(match word {
                "True" | "true" => "true",
                "False" | "false" => "false",
                "None" | "null" => "null",
                _ if number_exponent => word,
                _ => return None,
            });
            at = end;
            continue;
        }
        match byte {
            b'(' => out.push('['),
            b')' => out.push(']'),
            b'0'..=b'9' | b'-' | b'+' | b'.' | b'[' | b']' | b'{' | b'}' | b',' | b':' => {
                out.push(char::from(byte));
            }
            byte if byte.is_ascii_whitespace() => out.push(char::from(byte)),
            _ => return None,
        }
        at += 1;
    }
    (!out.trim().is_empty()).then_some(out)
}

/// Whether a string prefix (`r`, `u`, `b`, `f`, `rb`...) followed by a quote starts at `at`.
fn is_prefix(bytes: &[u8], at: usize) -> bool {
    let letters = bytes[at..]
        .iter()
        .take_while(|byte| matches!(byte.to_ascii_lowercase(), b'r' | b'u' | b'b' | b'f'))
        .count();
    (1..=2).contains(&letters)
        && matches!(bytes.get(at + letters), Some(b'"' | b'\''))
        && (at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_'))
}

/// The Python string literal at `start` (with an optional prefix; single, double or triple
/// quotes): its value and the index just past it. `None` when it does not close.
fn python_string(text: &str, start: usize) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let letters = bytes[start..]
        .iter()
        .take_while(|byte| byte.is_ascii_alphabetic())
        .count();
    let raw = bytes[start..start + letters]
        .iter()
        .any(|byte| byte.eq_ignore_ascii_case(&b'r'));
    let quote_at = start + letters;
    let quote = *bytes.get(quote_at)?;
    let triple = bytes.get(quote_at..quote_at + 3) == Some(&[quote; 3][..]);
    let delimiter: &[u8] = if triple { &[quote; 3] } else { &[quote] };
    let mut at = quote_at + delimiter.len();
    let mut value = String::new();
    while at < bytes.len() {
        if bytes[at..].starts_with(delimiter) {
            return Some((value, at + delimiter.len()));
        }
        let ch = text[at..].chars().next()?;
        if ch == '\\' && !raw {
            let escaped = text[at + 1..].chars().next()?;
            let (decoded, length) = match escaped {
                'n' => ("\n".to_owned(), 1),
                't' => ("\t".to_owned(), 1),
                'r' => ("\r".to_owned(), 1),
                '0' => ("\0".to_owned(), 1),
                '\\' | '\'' | '"' => (escaped.to_string(), 1),
                'u' => {
                    let code = text.get(at + 2..at + 6)?;
                    let decoded = u32::from_str_radix(code, 16)
                        .ok()
                        .and_then(char::from_u32)?;
                    (decoded.to_string(), 5)
                }
                '\n' => (String::new(), 1),
                other => (format!("\\{other}"), other.len_utf8()),
            };
            value.push_str(&decoded);
            at += 1 + length;
            continue;
        }
        if ch == '\n' && !triple {
            return None;
        }
        value.push(ch);
        at += ch.len_utf8();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_tool(name: &str) -> bool {
        matches!(
            name.rsplit('.').next().unwrap_or(name),
            "read_file" | "write_file" | "search"
        )
    }

    fn properties(name: &str) -> Vec<String> {
        match name.rsplit('.').next().unwrap_or(name) {
            "read_file" => vec!["path".to_owned(), "head".to_owned()],
            _ => Vec::new(),
        }
    }

    fn calls(text: &str) -> Vec<(String, serde_json::Value, bool)> {
        python_calls(text, &is_tool, &properties)
            .into_iter()
            .map(|call| {
                let value = serde_json::from_str(&call.arguments)
                    .unwrap_or_else(|error| panic!("{error}: {}", call.arguments));
                (call.name.to_owned(), value, call.positional)
            })
            .collect()
    }

    #[test]
    fn python_calls_unpack_a_keyword_dict() {
        use serde_json::json;
        assert_eq!(
            calls(r#"read_file(path="a.rs", **{"limit": 5, 'offset': 2})"#),
            [(
                "read_file".to_owned(),
                json!({"path": "a.rs", "limit": 5, "offset": 2}),
                false
            )]
        );
        assert_eq!(
            calls(r#"read_file(**{'path': "b.rs"})"#),
            [("read_file".to_owned(), json!({"path": "b.rs"}), false)]
        );
    }

    #[test]
    fn python_calls_in_the_styles_models_write() {
        use serde_json::json;
        assert_eq!(
            calls(r#"[read_file(path="src/main.rs", head=10)]"#),
            [(
                "read_file".to_owned(),
                json!({"path": "src/main.rs", "head": 10}),
                false
            )]
        );
        assert_eq!(
            calls(
                "```tool_code\nprint(default_api.write_file(path='a.txt', content='''line 1\nit's \"two\"\n'''))\n```"
            ),
            [(
                "default_api.write_file".to_owned(),
                json!({"path": "a.txt", "content": "line 1\nit's \"two\"\n"}),
                false
            )]
        );
        assert_eq!(
            calls(
                r#"search(query="a, b (c)", filters={'lang': 'rust', 'exact': True}, limit=None, tags=("x", "y"))"#
            ),
            [(
                "search".to_owned(),
                json!({"query": "a, b (c)", "filters": {"lang": "rust", "exact": true}, "limit": null, "tags": ["x", "y"]}),
                false
            )]
        );
        assert_eq!(
            calls(r#"read_file("README.md", 5)"#),
            [(
                "read_file".to_owned(),
                json!({"path": "README.md", "head": 5}),
                true
            )]
        );
        assert_eq!(
            calls("x = read_file(path='a\\tb\\u00e9')")[0].1,
            json!({"path": "a\tbé"})
        );
        assert_eq!(calls("search(limit=1e3)")[0].1, json!({"limit": 1e3}));
    }

    #[test]
    fn prose_and_variables_are_not_calls() {
        assert!(calls("I will call read_file(path) next, then open(x).").is_empty());
        assert!(calls("unknown_tool(path='a')").is_empty());
        assert!(calls("read_file(path=os.getcwd())").is_empty());
        // More positional arguments than the schema has properties.
        assert!(calls("read_file('a', 1, 2)").is_empty());
    }

    #[test]
    fn a_call_the_text_ends_inside_is_cut() {
        let found = python_calls("read_file(path='src/ma", &is_tool, &properties);
        assert_eq!(found.len(), 1);
        assert!(found[0].cut);
        assert_eq!(found[0].arguments, "{\"path\": 'src/ma}");
    }

    #[test]
    fn a_name_just_before_the_object_names_the_call() {
        fn name(text: &str) -> Option<&str> {
            let end = text.find('{').unwrap();
            name_before(text, 0, end, &is_tool)
        }
        assert_eq!(
            name("Action: read_file\nAction Input: {\"path\": \"a\"}"),
            Some("read_file")
        );
        assert_eq!(
            name("functions.read_file:0 {\"path\": \"a\"}"),
            Some("functions.read_file")
        );
        assert_eq!(
            name("<｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{\"q\": 1}"),
            Some("search")
        );
        assert_eq!(
            name("<|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>{}"),
            Some("functions.search")
        );
        assert_eq!(
            name("<|channel|>commentary to=functions.search <|constrain|>json<|message|>{}"),
            Some("functions.search")
        );
        // Words between the name and the object: not a call of that tool.
        assert_eq!(name("read_file returned this result: {\"ok\": true}"), None);
        assert_eq!(name("{\"path\": \"a\"}"), None);
    }
}
