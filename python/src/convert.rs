//! JSON values to Python objects and back, without recursion where the depth is the input's.
//!
//! Two ways in: [`parse_strict`] reads valid JSON text straight into Python objects (no
//! `serde_json::Value` in between: building the objects is most of the cost of a `loads`), and
//! [`to_python`] walks a repaired `Value`, which may be as deep as the repair ladder reads
//! (`MAX_DEPTH`), with a stack on the heap. [`from_python`] turns a Python value into a `Value`
//! for validation and schemas.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// How deep a Python value may be to become a `Value`: what `serde_json` itself parses, so
/// that validating it needs no more stack than validating parsed text.
const MAX_PYTHON_DEPTH: usize = 128;

/// The longest member name kept in [`Names`]: longer ones are rarely repeated.
const NAME_MEMO_BYTES: usize = 64;

/// Member names already made into Python strings during one conversion, as `json.loads` keeps
/// them: a document repeats its names (every step of a plan has the same keys), and one string
/// object per name saves making it again and hashing it again when the dict takes it (a
/// Python string keeps its hash).
struct Names<'py> {
    py: Python<'py>,
    made: HashMap<String, Bound<'py, PyString>, foldhash::fast::FixedState>,
}

impl<'py> Names<'py> {
    fn new(py: Python<'py>) -> Names<'py> {
        Names {
            py,
            made: HashMap::with_hasher(foldhash::fast::FixedState::default()),
        }
    }

    fn get(&mut self, name: &str) -> Bound<'py, PyString> {
        if name.len() > NAME_MEMO_BYTES {
            return PyString::new(self.py, name);
        }
        if let Some(made) = self.made.get(name) {
            return made.clone();
        }
        let made = PyString::new(self.py, name);
        self.made.insert(name.to_owned(), made.clone());
        made
    }
}

/// Valid JSON text as Python objects, or `None` when `serde_json` does not take it as it stands
/// (the repair ladder's first rung, `none`, is exactly this parse). Errors are Python's own
/// (memory).
///
/// An integer beyond 64 bits reaches the visitor as a double, its digits lost; `json.loads`
/// gives a Python `int` with every digit. So a text that holds a double as large as that is
/// read a second time, with the source text of each number at hand (see [`number_texts`]):
/// nothing is spent on the texts that hold none.
pub fn parse_strict<'py>(py: Python<'py>, text: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let large = Cell::new(false);
    let parsed = parse_strict_with(py, text, &large, None)?;
    if parsed.is_none() || !large.get() {
        return Ok(parsed);
    }
    let texts = RefCell::new(number_texts(text).into_iter());
    parse_strict_with(py, text, &large, Some(&texts))
}

fn parse_strict_with<'py>(
    py: Python<'py>,
    text: &str,
    large: &Cell<bool>,
    texts: Option<&RefCell<std::vec::IntoIter<String>>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let failure = RefCell::new(None);
    let names = RefCell::new(Names::new(py));
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let seed = Seed {
        py,
        failure: &failure,
        names: &names,
        large,
        texts,
    };
    let parsed = seed
        .deserialize(&mut deserializer)
        .and_then(|object| deserializer.end().map(|()| object));
    match (parsed, failure.into_inner()) {
        (_, Some(error)) => Err(error),
        (Ok(object), None) => Ok(Some(object)),
        (Err(_), None) => Ok(None),
    }
}

/// The numbers of valid JSON text, as written, in the order a parse meets them: every token
/// outside a string that starts with `-` or a digit.
fn number_texts(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut texts = Vec::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                at += 1;
                while let Some(&inside) = bytes.get(at) {
                    at += if inside == b'\\' { 2 } else { 1 };
                    if inside == b'"' {
                        break;
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = at;
                while bytes.get(at).is_some_and(|byte| {
                    matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                }) {
                    at += 1;
                }
                texts.push(text[start..at].to_owned());
            }
            _ => at += 1,
        }
    }
    texts
}

/// The smallest magnitude of a double that may stand for an integer beyond 64 bits (2^63).
const BEYOND_64_BITS: f64 = 9_223_372_036_854_775_808.0;

/// Builds one value's Python object as `serde_json` reads it; a Python error is kept aside
/// (serde errors carry only text) and the parse stopped.
#[derive(Clone, Copy)]
struct Seed<'a, 'py> {
    py: Python<'py>,
    failure: &'a RefCell<Option<PyErr>>,
    names: &'a RefCell<Names<'py>>,
    /// Set when a double met could be an integer beyond 64 bits.
    large: &'a Cell<bool>,
    /// On the second reading: the source texts of the numbers not yet met.
    texts: Option<&'a RefCell<std::vec::IntoIter<String>>>,
}

impl Seed<'_, '_> {
    fn keep<E: de::Error>(&self, error: PyErr) -> E {
        *self.failure.borrow_mut() = Some(error);
        E::custom("a Python error")
    }

    /// The source text of the number being visited, on the second reading.
    fn number_text(&self) -> Option<String> {
        self.texts.and_then(|texts| texts.borrow_mut().next())
    }
}

impl<'de, 'py> DeserializeSeed<'de> for Seed<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, 'py> Visitor<'de> for Seed<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.py.None().into_bound(self.py))
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Self::Value, E> {
        Ok(PyBool::new(self.py, value).to_owned().into_any())
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        self.number_text();
        Ok(PyInt::new(self.py, value).into_any())
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        self.number_text();
        Ok(PyInt::new(self.py, value).into_any())
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        if value.abs() >= BEYOND_64_BITS && value.fract() == 0.0 {
            self.large.set(true);
        }
        match self.number_text() {
            // Written without a fraction or exponent: an integer, as `json.loads` reads it.
            Some(written) if !written.contains(['.', 'e', 'E']) => {
                let int = self.py.get_type::<PyInt>();
                int.call1((written,)).map_err(|error| self.keep(error))
            }
            _ => Ok(PyFloat::new(self.py, value).into_any()),
        }
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.py, value).into_any())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
        let mut objects = Vec::with_capacity(items.size_hint().unwrap_or(0));
        while let Some(object) = items.next_element_seed(self)? {
            objects.push(object);
        }
        PyList::new(self.py, objects)
            .map(Bound::into_any)
            .map_err(|error| self.keep(error))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Self::Value, A::Error> {
        let dict = PyDict::new(self.py);
        while let Some(key) = members.next_key_seed(KeySeed(self.names))? {
            let value = members.next_value_seed(self)?;
            dict.set_item(key, value)
                .map_err(|error| self.keep(error))?;
        }
        Ok(dict.into_any())
    }
}

/// A member's name as a Python string, straight from the text.
struct KeySeed<'a, 'py>(&'a RefCell<Names<'py>>);

impl<'de, 'py> DeserializeSeed<'de> for KeySeed<'_, 'py> {
    type Value = Bound<'py, PyString>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, 'py> Visitor<'de> for KeySeed<'_, 'py> {
    type Value = Bound<'py, PyString>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        Ok(self.0.borrow_mut().get(value))
    }
}

/// A container being filled, with what is left of its `Value`.
enum Open<'py> {
    List(Vec<Bound<'py, PyAny>>, std::vec::IntoIter<Value>),
    Dict(
        Bound<'py, PyDict>,
        serde_json::map::IntoIter,
        Option<Bound<'py, PyString>>,
    ),
}

/// `value` as Python objects, consumed as it is walked (so dropping it never recurses either).
pub fn to_python(py: Python<'_>, value: Value) -> PyResult<Bound<'_, PyAny>> {
    let mut names = Names::new(py);
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        // A value to place: a scalar is done at once, a container opens.
        let done = match next.take() {
            Some(Value::Array(items)) => {
                stack.push(Open::List(
                    Vec::with_capacity(items.len()),
                    items.into_iter(),
                ));
                None
            }
            Some(Value::Object(members)) => {
                stack.push(Open::Dict(PyDict::new(py), members.into_iter(), None));
                None
            }
            Some(scalar) => Some(scalar_to_python(py, scalar)?),
            None => None,
        };
        let mut done = done;
        // Hand what is done to the container above, closing containers that are full.
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok(done.expect("the root value is done when no container is open"));
            };
            match top {
                Open::List(objects, rest) => {
                    if let Some(object) = done.take() {
                        objects.push(object);
                    }
                    if let Some(item) = rest.next() {
                        next = Some(item);
                        break;
                    }
                }
                Open::Dict(dict, rest, key) => {
                    if let (Some(object), Some(name)) = (done.take(), key.take()) {
                        dict.set_item(name, object)?;
                    }
                    if let Some((name, member)) = rest.next() {
                        *key = Some(names.get(&name));
                        next = Some(member);
                        break;
                    }
                }
            }
            done = Some(match stack.pop() {
                Some(Open::List(objects, _)) => PyList::new(py, objects)?.into_any(),
                Some(Open::Dict(dict, _, _)) => dict.into_any(),
                None => unreachable!("the top was just looked at"),
            });
        }
    }
}

fn scalar_to_python(py: Python<'_>, scalar: Value) -> PyResult<Bound<'_, PyAny>> {
    Ok(match scalar {
        Value::Null => py.None().into_bound(py),
        Value::Bool(value) => PyBool::new(py, value).to_owned().into_any(),
        Value::Number(number) => number_to_python(py, &number),
        Value::String(text) => PyString::new(py, &text).into_any(),
        Value::Array(_) | Value::Object(_) => unreachable!("containers open on the stack"),
    })
}

fn number_to_python<'py>(py: Python<'py>, number: &Number) -> Bound<'py, PyAny> {
    if let Some(value) = number.as_i64() {
        PyInt::new(py, value).into_any()
    } else if let Some(value) = number.as_u64() {
        PyInt::new(py, value).into_any()
    } else {
        PyFloat::new(py, number.as_f64().unwrap_or(f64::NAN)).into_any()
    }
}

/// A Python value (dict with string keys, list, tuple, str, int, float, bool, None) as a
/// `Value`; anything else is a `TypeError` naming where it is, as a JSON pointer.
pub fn from_python(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_python_at(object, &mut String::new(), 0)
}

fn from_python_at(
    object: &Bound<'_, PyAny>,
    pointer: &mut String,
    depth: usize,
) -> PyResult<Value> {
    if depth > MAX_PYTHON_DEPTH {
        return Err(PyValueError::new_err(format!(
            "the value is nested deeper than {MAX_PYTHON_DEPTH} levels at {}",
            shown(pointer)
        )));
    }
    if object.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: a Python bool is an int.
    if let Ok(value) = object.cast::<PyBool>() {
        return Ok(Value::Bool(value.is_true()));
    }
    if let Ok(value) = object.cast::<PyInt>() {
        if let Ok(value) = value.extract::<i64>() {
            return Ok(Value::from(value));
        }
        if let Ok(value) = value.extract::<u64>() {
            return Ok(Value::from(value));
        }
        return Err(PyValueError::new_err(format!(
            "the integer at {} does not fit in 64 bits",
            shown(pointer)
        )));
    }
    if let Ok(value) = object.cast::<PyFloat>() {
        return Number::from_f64(value.value())
            .map(Value::Number)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "the float at {} is not finite: JSON has no NaN or infinity",
                    shown(pointer)
                ))
            });
    }
    if let Ok(value) = object.cast::<PyString>() {
        return Ok(Value::String(value.to_cow()?.into_owned()));
    }
    if let Ok(dict) = object.cast::<PyDict>() {
        let mut members = Map::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let Ok(name) = key.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "a key at {} is a {}, not a str: JSON names are strings",
                    shown(pointer),
                    type_name(&key)
                )));
            };
            let name = name.to_cow()?.into_owned();
            let length = pointer.len();
            push_token(pointer, &name);
            let value = from_python_at(&item, pointer, depth + 1)?;
            pointer.truncate(length);
            members.insert(name, value);
        }
        return Ok(Value::Object(members));
    }
    let items: Option<Vec<Bound<'_, PyAny>>> = if let Ok(list) = object.cast::<PyList>() {
        Some(list.iter().collect())
    } else if let Ok(tuple) = object.cast::<PyTuple>() {
        Some(tuple.iter().collect())
    } else {
        None
    };
    if let Some(items) = items {
        let mut values = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let length = pointer.len();
            pointer.push('/');
            pointer.push_str(&index.to_string());
            values.push(from_python_at(item, pointer, depth + 1)?);
            pointer.truncate(length);
        }
        return Ok(Value::Array(values));
    }
    Err(PyTypeError::new_err(format!(
        "the {} at {} is not a JSON value (dict, list, tuple, str, int, float, bool or None)",
        type_name(object),
        shown(pointer)
    )))
}

/// Appends `/name` with `~` and `/` escaped as a JSON pointer has them.
fn push_token(pointer: &mut String, name: &str) {
    pointer.push('/');
    for character in name.chars() {
        match character {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            other => pointer.push(other),
        }
    }
}

fn shown(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(root)"
    } else {
        pointer
    }
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "object".to_owned())
}
