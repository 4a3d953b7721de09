//! Fuzzes the repair ladder with arbitrary bytes (read the way the CLI reads them: invalid
//! UTF-8 replaced). Beyond "no panic, no overflow, no hang", every outcome must be coherent:
//! - a repaired value prints as JSON that repairs again, unchanged, at rung `none`;
//! - the reported rung is the last rung that changed something;
//! - running the ladder with exactly the reported rungs gives the same value;
//! - with `finish_reason: length` the outcome is always truncated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use slmcode::repair::{
    FailureClass, RepairOptions, Rung, RungSet, drop_deep, equal_deep, repair, to_compact,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let result = repair(&text, &RepairOptions::new());
    if let Ok(repaired) = &result {
        assert_eq!(
            repaired.rung,
            repaired.rungs_changed.last().copied().unwrap_or(Rung::None)
        );
        let printed = to_compact(&repaired.value);
        let again = repair(&printed, &RepairOptions::new()).expect("printed JSON repairs");
        assert_eq!(again.rung, Rung::None, "{printed}");
        assert!(equal_deep(&again.value, &repaired.value), "{printed}");
        drop_deep(again.value);

        let only = RungSet::of(&repaired.rungs_changed);
        let same = repair(&text, &RepairOptions::new().rungs(only)).expect("its own rungs suffice");
        assert!(equal_deep(&same.value, &repaired.value));
        drop_deep(same.value);
    }
    let cut = repair(&text, &RepairOptions::new().finish_reason_length(true));
    assert_eq!(cut.as_ref().map_err(|failure| failure.class).err(), Some(FailureClass::Truncated));
    if let Ok(repaired) = result {
        drop_deep(repaired.value);
    }
    if let Err(failure) = cut {
        if let Some(value) = failure.value {
            drop_deep(value);
        }
        if let Some(partial) = failure.partial {
            drop_deep(serde_json::Value::Object(partial));
        }
    }
});
