//! When a pinned pipeline reaches one of its steps.
//!
//! nf-core pipelines run most of their processes only for the options that
//! select them: scrnaseq runs CELLRANGERARC_* only for its own aligner,
//! nanoseq DEEPVARIANT only when variant calling is asked for. A step Somite
//! cannot give a Pixi environment (a container-only process) must therefore
//! not block a pipeline whose parameters never reach it — and must block one
//! whose parameters provably do.
//!
//! The outline records, for every invocation, the guards on the way from the
//! entry workflow to it ([`SourceReach`]): enclosing `if` conditions (an
//! `else` as the negation of the branch before it), the process's `when:`
//! guard and nf-core's `ext.when`, each with a structured form where the code
//! allows one and [`SourceCondition::Unknown`] where it does not. This
//! module evaluates them against the node's parameters in three values
//! ([`Truth`]): a condition on a parameter the pipeline's schema does not
//! declare, or of a form the outline does not read, is `Unknown`, never a
//! guess. Groovy's truth applies (`null`, `false`, `0`, `""` and empty
//! lists are false), as Nextflow evaluates the same conditions.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Paths kept for one invocation and guards kept on one path: a pipeline
/// past them is cut there and the cut path reads as unknown.
pub const MAX_REACH_PATHS: usize = 16;
pub const MAX_PATH_GUARDS: usize = 16;

/// When the entry workflow reaches a call: when any path holds; a path holds
/// when all of its guards hold. `[[]]` (the default) is "always".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceReach {
    pub paths: Vec<Vec<SourceGuard>>,
}

impl Default for SourceReach {
    fn default() -> Self {
        SourceReach {
            paths: vec![Vec::new()],
        }
    }
}

impl SourceReach {
    /// Whether the call is reached whatever the parameters.
    pub fn is_always(&self) -> bool {
        self.paths.iter().any(Vec::is_empty)
    }

    /// Whether the call is reached with the parameter values `value_of`
    /// gives.
    pub fn evaluate<'v>(&self, value_of: &dyn Fn(&str) -> Lookup<'v>) -> Truth {
        Truth::any(self.paths.iter().map(|path| {
            Truth::all(path.iter().map(|guard| {
                let truth = guard.condition.evaluate(value_of);
                if guard.holds { truth } else { truth.not() }
            }))
        }))
    }

    /// Every pipeline parameter the guards read, sorted, once each.
    pub fn params(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .paths
            .iter()
            .flatten()
            .flat_map(|g| g.condition.params())
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The conditions in words, one path per entry: `` `params.x == 'y'` and
    /// not `params.skip` ``.
    pub fn describe(&self) -> Vec<String> {
        self.paths
            .iter()
            .map(|path| {
                path.iter()
                    .map(|g| {
                        if g.holds {
                            format!("`{}`", g.text)
                        } else {
                            format!("not `{}`", g.text)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" and ")
            })
            .collect()
    }
}

/// One condition on the way to a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceGuard {
    pub kind: GuardKind,
    /// The condition as written (shortened by the outline).
    pub text: String,
    /// True: the call runs when the condition holds; false: when it does not
    /// (the `else` branch).
    pub holds: bool,
    pub condition: SourceCondition,
    pub file: String,
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum GuardKind {
    /// An enclosing `if`.
    If,
    /// An enclosing `else` (the negation of the branch before it).
    Else,
    /// The process's `when:` block.
    When,
    /// `ext.when` set for the process in the pipeline's config.
    ExtWhen,
}

/// A condition in the forms nf-core writes; everything else is `Unknown`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum SourceCondition {
    /// The Groovy truth of `params.NAME`.
    Param {
        name: String,
    },
    /// `params.NAME == literal`.
    Equals {
        param: String,
        value: Value,
    },
    /// `params.X.split(',').contains('y')` (a separator) or
    /// `params.X.contains('y')` (a substring, or membership in a list).
    Contains {
        param: String,
        item: String,
        separator: Option<String>,
    },
    Not {
        of: Box<SourceCondition>,
    },
    All {
        of: Vec<SourceCondition>,
    },
    Any {
        of: Vec<SourceCondition>,
    },
    Literal {
        value: bool,
    },
    /// A form not read statically, with the parameters it reads.
    Unknown {
        params: Vec<String>,
    },
}

/// What a parameter's value is known to be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lookup<'a> {
    /// The value the run will see (`None`: unset, Groovy's `null`).
    Known(Option<&'a Value>),
    /// A parameter Somite cannot know the value of.
    Unknown,
}

/// A three-valued truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Truth {
    True,
    False,
    Unknown,
}

impl Truth {
    fn of(b: bool) -> Truth {
        if b { Truth::True } else { Truth::False }
    }

    #[allow(clippy::should_implement_trait)] // three-valued, not `std::ops::Not` on a bool
    pub fn not(self) -> Truth {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        }
    }

    /// False if any is false, else unknown if any is unknown, else true.
    pub fn all(items: impl IntoIterator<Item = Truth>) -> Truth {
        let mut out = Truth::True;
        for t in items {
            match t {
                Truth::False => return Truth::False,
                Truth::Unknown => out = Truth::Unknown,
                Truth::True => {}
            }
        }
        out
    }

    /// True if any is true, else unknown if any is unknown, else false.
    pub fn any(items: impl IntoIterator<Item = Truth>) -> Truth {
        let mut out = Truth::False;
        for t in items {
            match t {
                Truth::True => return Truth::True,
                Truth::Unknown => out = Truth::Unknown,
                Truth::False => {}
            }
        }
        out
    }
}

impl SourceCondition {
    pub fn evaluate<'v>(&self, value_of: &dyn Fn(&str) -> Lookup<'v>) -> Truth {
        let known = |name: &str| match value_of(name) {
            Lookup::Known(value) => Some(value),
            Lookup::Unknown => None,
        };
        match self {
            SourceCondition::Param { name } => match known(name) {
                Some(value) => Truth::of(groovy_truth(value)),
                None => Truth::Unknown,
            },
            SourceCondition::Equals { param, value } => match known(param) {
                Some(actual) => Truth::of(groovy_equals(actual, value)),
                None => Truth::Unknown,
            },
            SourceCondition::Contains {
                param,
                item,
                separator,
            } => match known(param) {
                Some(actual) => contains(actual, item, separator.as_deref()),
                None => Truth::Unknown,
            },
            SourceCondition::Not { of } => of.evaluate(value_of).not(),
            SourceCondition::All { of } => Truth::all(of.iter().map(|c| c.evaluate(value_of))),
            SourceCondition::Any { of } => Truth::any(of.iter().map(|c| c.evaluate(value_of))),
            SourceCondition::Literal { value } => Truth::of(*value),
            SourceCondition::Unknown { .. } => Truth::Unknown,
        }
    }

    /// The parameters the condition reads.
    pub fn params(&self) -> Vec<&str> {
        match self {
            SourceCondition::Param { name } => vec![name.as_str()],
            SourceCondition::Equals { param, .. } | SourceCondition::Contains { param, .. } => {
                vec![param.as_str()]
            }
            SourceCondition::Not { of } => of.params(),
            SourceCondition::All { of } | SourceCondition::Any { of } => {
                of.iter().flat_map(SourceCondition::params).collect()
            }
            SourceCondition::Literal { .. } => Vec::new(),
            SourceCondition::Unknown { params } => params.iter().map(String::as_str).collect(),
        }
    }
}

/// Groovy's truth of a parameter value.
fn groovy_truth(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        Some(Value::Object(map)) => !map.is_empty(),
    }
}

/// Groovy's `==` between a parameter and a literal: numbers compare by value
/// (`1 == 1.0`), everything else as JSON.
fn groovy_equals(actual: Option<&Value>, literal: &Value) -> bool {
    let actual = actual.unwrap_or(&Value::Null);
    match (actual, literal) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => actual == literal,
    }
}

fn contains(actual: Option<&Value>, item: &str, separator: Option<&str>) -> Truth {
    match (actual, separator) {
        // `null.split(…)` fails the run before the call; a pipeline guards
        // it with `params.x &&`, which is false here too.
        (None | Some(Value::Null), _) => Truth::False,
        (Some(Value::String(text)), Some(separator)) => {
            Truth::of(text.split(separator).any(|part| part == item))
        }
        (Some(Value::String(text)), None) => Truth::of(text.contains(item)),
        (Some(Value::Array(items)), _) => Truth::of(items.iter().any(|v| v.as_str() == Some(item))),
        _ => Truth::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn guard(condition: SourceCondition, holds: bool) -> SourceGuard {
        SourceGuard {
            kind: if holds {
                GuardKind::If
            } else {
                GuardKind::Else
            },
            text: "…".into(),
            holds,
            condition,
            file: "main.nf".into(),
            line: 1,
        }
    }

    /// The lookup of a run whose parameters are `map`; a name not in it is
    /// one the schema does not declare.
    fn lookup<'m>(map: &'m serde_json::Map<String, Value>) -> impl Fn(&str) -> Lookup<'m> + 'm {
        move |name| match map.get(name) {
            Some(Value::Null) => Lookup::Known(None),
            Some(v) => Lookup::Known(Some(v)),
            None => Lookup::Unknown,
        }
    }

    #[test]
    fn groovy_truth_and_equality_decide_known_parameters() {
        let params = json!({
            "aligner": "simpleaf", "skip_qc": false, "tools": "deepvariant,m6anet",
            "min": 1, "empty": "", "unset": null,
        });
        let v = lookup(params.as_object().unwrap());
        let eq = |p: &str, value: Value| SourceCondition::Equals {
            param: p.into(),
            value,
        };
        assert_eq!(
            eq("aligner", json!("cellrangerarc")).evaluate(&v),
            Truth::False
        );
        assert_eq!(eq("aligner", json!("simpleaf")).evaluate(&v), Truth::True);
        assert_eq!(eq("min", json!(1.0)).evaluate(&v), Truth::True);
        let param = |p: &str| SourceCondition::Param { name: p.into() };
        assert_eq!(param("skip_qc").evaluate(&v), Truth::False);
        assert_eq!(param("empty").evaluate(&v), Truth::False);
        assert_eq!(param("unset").evaluate(&v), Truth::False);
        assert_eq!(param("tools").evaluate(&v), Truth::True);
        assert_eq!(param("not_in_schema").evaluate(&v), Truth::Unknown);
        let has = |item: &str, separator: Option<&str>| SourceCondition::Contains {
            param: "tools".into(),
            item: item.into(),
            separator: separator.map(str::to_owned),
        };
        assert_eq!(has("m6anet", Some(",")).evaluate(&v), Truth::True);
        assert_eq!(has("m6a", Some(",")).evaluate(&v), Truth::False);
        assert_eq!(has("m6a", None).evaluate(&v), Truth::True);
        let unset_has = SourceCondition::Contains {
            param: "unset".into(),
            item: "x".into(),
            separator: Some(",".into()),
        };
        assert_eq!(unset_has.evaluate(&v), Truth::False);
    }

    #[test]
    fn unknown_poisons_only_what_it_can_change() {
        let params = json!({"skip": true});
        let v = lookup(params.as_object().unwrap());
        let unknown = SourceCondition::Unknown {
            params: vec!["x".into()],
        };
        let skip = SourceCondition::Param {
            name: "skip".into(),
        };
        let all = SourceCondition::All {
            of: vec![
                unknown.clone(),
                SourceCondition::Not {
                    of: Box::new(skip.clone()),
                },
            ],
        };
        // `!skip` is false, so the conjunction is false whatever `x` is.
        assert_eq!(all.evaluate(&v), Truth::False);
        let any = SourceCondition::Any {
            of: vec![unknown.clone(), skip],
        };
        assert_eq!(any.evaluate(&v), Truth::True);
        assert_eq!(unknown.evaluate(&v), Truth::Unknown);
    }

    #[test]
    fn a_reach_holds_when_one_path_holds_and_else_negates() {
        let params = json!({"aligner": "star"});
        let v = lookup(params.as_object().unwrap());
        let is_star = SourceCondition::Equals {
            param: "aligner".into(),
            value: json!("star"),
        };
        // Called in both branches of `if (aligner == 'star') … else …`.
        let both = SourceReach {
            paths: vec![
                vec![guard(is_star.clone(), true)],
                vec![guard(is_star.clone(), false)],
            ],
        };
        assert_eq!(both.evaluate(&v), Truth::True);
        let else_only = SourceReach {
            paths: vec![vec![guard(is_star, false)]],
        };
        assert_eq!(else_only.evaluate(&v), Truth::False);
        assert!(SourceReach::default().is_always());
        assert_eq!(SourceReach::default().evaluate(&v), Truth::True);
        assert_eq!(else_only.params(), vec!["aligner"]);
        assert_eq!(else_only.describe(), vec!["not `…`".to_owned()]);
    }

    #[test]
    fn the_wire_form_is_tagged_by_op() {
        let condition = SourceCondition::Not {
            of: Box::new(SourceCondition::Param {
                name: "skip_fastqc".into(),
            }),
        };
        assert_eq!(
            serde_json::to_value(&condition).unwrap(),
            json!({"op": "not", "of": {"op": "param", "name": "skip_fastqc"}})
        );
    }
}
