use super::*;

#[test]
fn enforcement_looks_at_syntax_not_at_what_a_double_holds() {
    assert!(parses(r#"{"score": -911e5807, "url": "x"}"#));
    assert!(parses("<think>hm</think>\n {\"a\": [1, 2.5e-999]} "));
    for broken in [
        "Sure! {\"a\": 1}",
        "{\"a\": 1,}",
        "{'a': 1}",
        "{\"a\": 1",
        "{\"a\": 01}",
        "",
    ] {
        assert!(!parses(broken), "{broken}");
    }
}

#[test]
fn strict_becomes_plain_json_schema_for_a_schema_that_is_not_strict_ready() {
    let forms = vec![
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
    ];
    assert_eq!(strict_adjusted(forms.clone(), true), forms);
    assert_eq!(
        strict_adjusted(forms, false),
        [WireForm::JsonSchema, WireForm::Grammar]
    );
}

#[test]
fn forced_guided_tries_the_preferred_field_first() {
    assert_eq!(
        forced_forms(Mechanism::GuidedJson, GuidedField::GuidedJson),
        [WireForm::GuidedJson, WireForm::StructuredOutputs]
    );
    assert_eq!(
        forced_forms(Mechanism::GuidedJson, GuidedField::StructuredOutputs),
        [WireForm::StructuredOutputs, WireForm::GuidedJson]
    );
    assert!(forced_forms(Mechanism::PromptOnly, GuidedField::default()).is_empty());
}

#[test]
fn dropping_a_form_keeps_the_position_on_the_next_form() {
    let mut chain = MechanismChain {
        forms: vec![Some(WireForm::JsonSchema), Some(WireForm::JsonObject), None],
        at: 0,
        source: ChainSource::Negotiated,
    };
    chain.drop_form(WireForm::JsonSchema);
    assert_eq!(chain.current(), Some(WireForm::JsonObject));
    chain.drop_form(WireForm::JsonObject);
    assert_eq!(chain.current(), None);
    chain.advance();
    assert_eq!(chain.current(), None);
}

#[test]
fn only_field_rejections_and_non_4xx_failures_walk_down() {
    let error = |class, status| CallError {
        class,
        status,
        detail: String::new(),
        retry_after: None,
        attempts: 1,
        tls: None,
        refused: false,
        refusing_since: None,
    };
    assert!(is_rejection(&error(ErrorClass::Permanent, Some(400))));
    // A failed TLS handshake (permanent, no status) is no field's fault: it ends the call.
    assert!(!is_rejection(&error(ErrorClass::Permanent, None)));
    assert!(!calls_for_plain_resend(&error(ErrorClass::Permanent, None)));
    assert!(is_rejection(&error(ErrorClass::Permanent, Some(422))));
    assert!(!is_rejection(&error(ErrorClass::Permanent, Some(401))));
    assert!(!is_rejection(&error(
        ErrorClass::ContextOverflow,
        Some(400)
    )));
    assert!(calls_for_plain_resend(&error(
        ErrorClass::Transient,
        Some(500)
    )));
    // Loading, overloaded, a gateway, no connection: transient, never the field's fault.
    for status in [Some(502), Some(503), Some(504), None] {
        assert!(
            !calls_for_plain_resend(&error(ErrorClass::Transient, status)),
            "{status:?}"
        );
    }
    assert!(calls_for_plain_resend(&error(ErrorClass::Unknown, None)));
    assert!(!calls_for_plain_resend(&error(
        ErrorClass::Unknown,
        Some(405)
    )));
    assert!(!calls_for_plain_resend(&error(
        ErrorClass::RateLimited,
        Some(429)
    )));
    assert!(!calls_for_plain_resend(&error(ErrorClass::Canceled, None)));
    assert!(!calls_for_plain_resend(&error(
        ErrorClass::ContextOverflow,
        Some(500)
    )));
}

#[test]
fn parsing_allows_a_reasoning_block_and_whitespace_only() {
    assert!(parses("  {\"a\": 1}\n"));
    assert!(parses("<think>hm</think>{\"a\": 1}"));
    assert!(!parses("```json\n{\"a\": 1}\n```"));
    assert!(!parses("Sure: {\"a\": 1}"));
    assert!(!parses("{\"a\": 1,}"));
}
