//! The probe catalog: Tensile's capability keys, their snippets and ISA lists, loaded from
//! `checks/asm-caps.toml` (compiled in).

use crate::data::DataError;
use serde::Deserialize;
use std::sync::OnceLock;

/// Which Tensile's probe to emulate (defined with the configuration).
pub use crate::config::AsmCompat as Compat;

/// A value of one capability, typed as Tensile has it (part of the report model: the matrix
/// and the `asm_caps` JSON object are rendered from it).
pub(crate) use crate::report::asm_caps::Cap as Value;

/// How one key is derived.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// True iff any alternative assembles (tried in order, short-circuit).
    Probe(Vec<String>),
    /// The value of the first snippet that assembles, else `otherwise`.
    Count {
        chain: Vec<(String, i64)>,
        otherwise: i64,
    },
    /// Not probed.
    Const(Value),
}

#[derive(Debug, Clone)]
pub struct Key {
    pub name: String,
    pub rule: Rule,
}

#[derive(Debug, Clone)]
pub struct Catalog {
    pub compat: Compat,
    pub keys: Vec<Key>,
    /// Tensile's SupportedISA list for this variant (without the pseudo ISA).
    pub supported_isa: Vec<String>,
    /// The pseudo ISA Tensile probes too (`gfx000`).
    pub pseudo_isa: String,
    /// Where the data comes from.
    pub source: String,
}

impl Catalog {
    /// Every distinct snippet the rules mention, in first-use order (the empty input included).
    pub(crate) fn distinct_snippets(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for k in &self.keys {
            let it: Vec<&str> = match &k.rule {
                Rule::Probe(v) => v.iter().map(String::as_str).collect(),
                Rule::Count { chain, .. } => chain.iter().map(|(s, _)| s.as_str()).collect(),
                Rule::Const(_) => Vec::new(),
            };
            for s in it {
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }

    /// The value of every key when the ISA is not supported at all (every probe fails).
    pub(crate) fn all_failed(&self) -> Vec<(String, Value)> {
        self.derive(|_| false)
    }

    /// Derives every key from a per-snippet verdict, applying alternatives and chains.
    pub(crate) fn derive(&self, mut assembles: impl FnMut(&str) -> bool) -> Vec<(String, Value)> {
        self.keys
            .iter()
            .map(|k| {
                let v = match &k.rule {
                    Rule::Probe(alts) => Value::Bool(alts.iter().any(|s| assembles(s))),
                    Rule::Count { chain, otherwise } => Value::Int(
                        chain
                            .iter()
                            .find(|(s, _)| assembles(s))
                            .map(|(_, v)| *v)
                            .unwrap_or(*otherwise),
                    ),
                    Rule::Const(v) => *v,
                };
                (k.name.clone(), v)
            })
            .collect()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    source: std::collections::BTreeMap<String, String>,
    isa_lists: IsaLists,
    key: Vec<RawKey>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IsaLists {
    current: Vec<String>,
    #[serde(rename = "6.2")]
    v6_2: Vec<String>,
    pseudo: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKey {
    name: toml::Spanned<String>,
    kind: Kind,
    #[serde(default)]
    snippets: Vec<String>,
    #[serde(default)]
    snippets_6_2: Option<Vec<String>>,
    #[serde(default)]
    chain: Vec<ChainStep>,
    #[serde(default)]
    otherwise: Option<i64>,
    #[serde(default)]
    value: Option<toml::Value>,
}

/// How a key's value is found (`kind` in the table; another word fails the load).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// True when any of the snippets assembles.
    Probe,
    /// The value of the first snippet in the chain that assembles, else `otherwise`.
    Count,
    /// A fixed value.
    Const,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChainStep {
    snippet: String,
    value: i64,
}

const TEXT: &str = include_str!("../../checks/asm-caps.toml");

const FILE: &str = "checks/asm-caps.toml";

fn parse(text: &str, compat: Compat) -> Result<Catalog, DataError> {
    let f: File = crate::data::load(FILE, text)?;
    let mut keys = Vec::new();
    for k in f.key {
        let err = |msg: &str| DataError::at(FILE, text, k.name.span(), msg);
        let rule = match k.kind {
            Kind::Probe => {
                let snippets = match (compat, k.snippets_6_2) {
                    (Compat::V6_2, Some(v)) => v,
                    _ => k.snippets,
                };
                if snippets.is_empty() {
                    return Err(err(&format!(
                        "{}: a probe needs snippets",
                        k.name.get_ref()
                    )));
                }
                Rule::Probe(snippets)
            }
            Kind::Count => Rule::Count {
                chain: k.chain.into_iter().map(|c| (c.snippet, c.value)).collect(),
                otherwise: k.otherwise.ok_or_else(|| {
                    err(&format!("{}: a count needs `otherwise`", k.name.get_ref()))
                })?,
            },
            Kind::Const => Rule::Const(match k.value {
                Some(toml::Value::Boolean(b)) => Value::Bool(b),
                Some(toml::Value::Integer(i)) => Value::Int(i),
                _ => {
                    return Err(err(&format!(
                        "{}: a const needs a boolean or integer value",
                        k.name.get_ref()
                    )))
                }
            }),
        };
        keys.push(Key {
            name: k.name.into_inner(),
            rule,
        });
    }
    let supported_isa = match compat {
        Compat::Current => f.isa_lists.current,
        Compat::V6_2 => f.isa_lists.v6_2,
    };
    let source = f.source.get(compat.as_str()).cloned().unwrap_or_default();
    Ok(Catalog {
        compat,
        keys,
        supported_isa,
        pseudo_isa: f.isa_lists.pseudo,
        source,
    })
}

/// The compiled-in catalog for a Tensile variant.
pub fn catalog(compat: Compat) -> &'static Catalog {
    static CUR: OnceLock<Catalog> = OnceLock::new();
    static OLD: OnceLock<Catalog> = OnceLock::new();
    let cell = match compat {
        Compat::Current => &CUR,
        Compat::V6_2 => &OLD,
    };
    cell.get_or_init(|| {
        parse(TEXT, compat).unwrap_or_else(|e| panic!("compiled-in table is invalid: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_kind_fails_the_load_with_its_line() {
        let at = TEXT.find("\nkind = \"count\"").unwrap() + 1;
        let line = TEXT[..at].matches('\n').count() + 1;
        let bad = TEXT.replacen("\nkind = \"count\"", "\nkind = \"cuont\"", 1);
        let e = parse(&bad, Compat::Current).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "checks/asm-caps.toml:{line}:8: unknown variant `cuont`"
            )),
            "{e}"
        );
    }

    #[test]
    fn both_variants_have_tensiles_44_keys_in_order() {
        for c in [Compat::Current, Compat::V6_2] {
            let cat = parse(TEXT, c).unwrap();
            assert_eq!(cat.keys.len(), 44);
            assert_eq!(cat.keys[0].name, "SupportedISA");
            assert_eq!(cat.keys[0].rule, Rule::Probe(vec![String::new()]));
            assert_eq!(cat.keys.last().unwrap().name, "SupportedSource");
            let names: Vec<&str> = cat.keys.iter().map(|k| k.name.as_str()).collect();
            let pos = |n: &str| names.iter().position(|x| *x == n).unwrap();
            assert!(
                pos("MaxVmcnt") < pos("MaxLgkmcnt") && pos("MaxLgkmcnt") < pos("KernargPreloading")
            );
            // 47 distinct single-line snippets + "" + the kernarg block (reference §4).
            let d = cat.distinct_snippets();
            assert_eq!(d.len(), 49, "{d:#?}");
            assert_eq!(d.iter().filter(|s| s.contains('\n')).count(), 1);
        }
    }

    #[test]
    fn variants_differ_only_in_wmma_and_isa_list() {
        let (a, b) = (
            parse(TEXT, Compat::Current).unwrap(),
            parse(TEXT, Compat::V6_2).unwrap(),
        );
        let diff: Vec<&str> = a
            .keys
            .iter()
            .zip(&b.keys)
            .filter(|(x, y)| x.rule != y.rule)
            .map(|(x, _)| x.name.as_str())
            .collect();
        assert_eq!(diff, ["HasWMMA"]);
        assert_eq!(a.supported_isa.len(), 17);
        assert_eq!(b.supported_isa.len(), 16);
        assert!(
            b.supported_isa.contains(&"gfx940".to_string())
                && !a.supported_isa.contains(&"gfx940".to_string())
        );
        assert_eq!(a.pseudo_isa, "gfx000");
    }

    #[test]
    fn constants_and_chain_are_tensiles() {
        let cat = parse(TEXT, Compat::Current).unwrap();
        let none = cat.all_failed();
        let get = |n: &str| none.iter().find(|(k, _)| k == n).unwrap().1;
        assert_eq!(get("MaxLgkmcnt"), Value::Int(15));
        assert_eq!(get("SupportedSource"), Value::Bool(true));
        assert_eq!(get("MaxVmcnt"), Value::Int(0));
        assert_eq!(get("HasMFMA"), Value::Bool(false));
        let only15 = cat.derive(|s| s == "s_waitcnt vmcnt(15)");
        assert_eq!(
            only15.iter().find(|(k, _)| k == "MaxVmcnt").unwrap().1,
            Value::Int(15)
        );
        let alt = cat.derive(|s| s.starts_with("v_dot2acc"));
        assert_eq!(
            alt.iter().find(|(k, _)| k == "v_dot2c_f32_f16").unwrap().1,
            Value::Bool(true)
        );
    }

    #[test]
    fn kernarg_block_is_tensiles_exact_string() {
        let cat = parse(TEXT, Compat::Current).unwrap();
        let k = cat
            .keys
            .iter()
            .find(|k| k.name == "KernargPreloading")
            .unwrap();
        let Rule::Probe(s) = &k.rule else { panic!() };
        assert_eq!(s[0].len(), 386);
        assert_eq!(s[0].matches('\n').count(), 12);
        assert!(
            s[0].starts_with("\n      TestKernel:\n")
                && s[0].ends_with(".end_amdhsa_kernel\n      ")
        );
    }

    #[test]
    fn compat_values() {
        assert_eq!(Compat::parse("6.2").unwrap(), Compat::V6_2);
        assert_eq!(Compat::parse("current").unwrap(), Compat::Current);
        assert!(Compat::parse("7.0").is_err());
    }
}
