//! `--expect FILE`: compare the probe's result with a saved one (the `asm_caps` object of a
//! previous `--json` run, or the whole document), key by key.

use serde_json::{Map, Value};

/// Reads the expected `{gfx: {key: value}}` object from a saved file's text.
pub(crate) fn load(text: &str) -> Result<Map<String, Value>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let obj = match v {
        Value::Object(mut o) => match o.remove("asm_caps") {
            Some(Value::Object(inner)) => inner,
            Some(_) => return Err("`asm_caps` is not an object".into()),
            None => o,
        },
        _ => return Err("expected a JSON object".into()),
    };
    for (isa, caps) in &obj {
        let Value::Object(caps) = caps else {
            return Err(format!("{isa}: expected an object of capabilities"));
        };
        for (k, v) in caps {
            if !(v.is_boolean() || v.is_i64() || v.is_u64()) {
                return Err(format!("{isa}.{k}: expected a boolean or an integer"));
            }
        }
    }
    Ok(obj)
}

/// Every difference, as `gfx.Key: expected X, got Y` lines (empty: identical).
pub(crate) fn compare(expected: &Map<String, Value>, actual: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    let empty = Map::new();
    for (isa, e) in expected {
        let Some(a) = actual.get(isa) else {
            out.push(format!("{isa}: expected, but not probed in this run"));
            continue;
        };
        let e = e.as_object().unwrap_or(&empty);
        let a = a.as_object().unwrap_or(&empty);
        for (k, ev) in e {
            match a.get(k) {
                Some(av) if av == ev => {}
                Some(av) => out.push(format!("{isa}.{k}: expected {ev}, got {av}")),
                None => out.push(format!("{isa}.{k}: expected {ev}, absent")),
            }
        }
        for (k, av) in a {
            if !e.contains_key(k) {
                out.push(format!("{isa}.{k}: not expected, got {av}"));
            }
        }
    }
    for isa in actual.keys() {
        if !expected.contains_key(isa) {
            out.push(format!("{isa}: probed, but not in the expected file"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn identical_gives_nothing_and_differences_are_named() {
        let a = obj(json!({"gfx1030": {"SupportedISA": true, "MaxVmcnt": 63}}));
        assert!(compare(&a, &a).is_empty());
        let e = obj(
            json!({"gfx1030": {"SupportedISA": true, "MaxVmcnt": 15}, "gfx90a": {"SupportedISA": true}}),
        );
        let d = compare(&e, &a);
        assert_eq!(
            d,
            [
                "gfx1030.MaxVmcnt: expected 15, got 63",
                "gfx90a: expected, but not probed in this run"
            ]
        );
    }

    #[test]
    fn accepts_whole_documents_and_rejects_bad_shapes() {
        let doc = r#"{"schema_version":1,"asm_caps":{"gfx803":{"MaxVmcnt":15}}}"#;
        assert_eq!(load(doc).unwrap().len(), 1);
        assert!(load("[1]").is_err());
        assert!(load("{\"gfx803\": 3}").is_err());
        assert!(load("{\"gfx803\": {\"x\": \"yes\"}}").is_err());
        assert!(load("not json").is_err());
    }
}
