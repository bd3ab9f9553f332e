//! Message and fix templates: literal text with `{probe}` / `{probe.field}` references
//! (`{{` and `}}` are literal braces). Pure.

/// What a reference reads from a probe's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Field {
    /// The value's first line, trimmed.
    Value,
    /// Tokens that broke `subset_of` / `covers`, comma-separated.
    Missing,
    /// How many tokens the probe has.
    Count,
    /// A capture group of the probe's regex, by number or name.
    Group(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Lit(String),
    Ref(String, Field),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

impl Template {
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut it = s.chars().peekable();
        while let Some(c) = it.next() {
            match c {
                '{' if it.peek() == Some(&'{') => {
                    it.next();
                    lit.push('{');
                }
                '}' if it.peek() == Some(&'}') => {
                    it.next();
                    lit.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match it.next() {
                            Some('}') => break,
                            Some(c) => name.push(c),
                            None => return Err(format!("unclosed '{{' in template '{s}'")),
                        }
                    }
                    let (probe, field) = name.split_once('.').unwrap_or((&name, "value"));
                    if probe.is_empty() {
                        return Err(format!("empty reference '{{{name}}}' in template"));
                    }
                    let field = match field {
                        "value" => Field::Value,
                        "missing" => Field::Missing,
                        "count" => Field::Count,
                        g => Field::Group(g.to_string()),
                    };
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Ref(probe.to_string(), field));
                }
                '}' => return Err(format!("a lone '}}' in template '{s}' (write '}}}}')")),
                c => lit.push(c),
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Ok(Template { parts })
    }

    pub(crate) fn refs(&self) -> impl Iterator<Item = (&str, &Field)> {
        self.parts.iter().filter_map(|p| match p {
            Part::Ref(n, f) => Some((n.as_str(), f)),
            Part::Lit(_) => None,
        })
    }

    /// Fills the references with `lookup(probe, field)`.
    pub(crate) fn render(&self, lookup: &dyn Fn(&str, &Field) -> String) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Lit(s) => s.clone(),
                Part::Ref(n, f) => lookup(n, f),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fields_and_escapes() {
        let t = Template::parse("{{x}} {arch} lacks {gpus.missing}; v{ver.1}").unwrap();
        let refs: Vec<_> = t.refs().collect();
        assert_eq!(refs.len(), 3);
        assert_eq!(refs[1], ("gpus", &Field::Missing));
        let out = t.render(&|n, f| format!("<{n}:{f:?}>"));
        assert_eq!(
            out,
            "{x} <arch:Value> lacks <gpus:Missing>; v<ver:Group(\"1\")>"
        );
        assert!(Template::parse("{open").is_err());
        assert!(Template::parse("a } b").is_err());
        assert!(Template::parse("{}").is_err());
    }
}
