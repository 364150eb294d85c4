//! The tokenizer on the Groovy that line-based patterns get wrong.

use somite_outline::lexer::{Quote, StrPart, Tok, Token, lex};

const NESTING: usize = 64;

fn tokens(src: &str) -> Vec<Token> {
    let lexed = lex(src.as_bytes(), NESTING);
    assert_eq!(lexed.problems, vec![], "no problems in {src:?}");
    lexed
        .tokens
        .into_iter()
        .filter(|t| !t.is_newline())
        .collect()
}

fn brackets(tokens: &[Token]) -> String {
    tokens
        .iter()
        .filter_map(|t| match t.tok {
            Tok::Punct(p @ ("{" | "}" | "(" | ")")) => Some(p),
            _ => None,
        })
        .collect()
}

#[test]
fn braces_and_slashes_inside_strings_are_text() {
    let toks = tokens(r#"workflow { x = "}//{" + '}' ; y = 1 }"#);
    assert_eq!(brackets(&toks), "{}");
    let strings: Vec<String> = toks.iter().filter_map(Token::constant_str).collect();
    assert_eq!(strings, vec!["}//{", "}"]);
    assert!(toks.last().unwrap().is_punct("}"));
}

#[test]
fn comments_hide_quotes_and_braces() {
    let toks = tokens("a { // it's { here\n /* \"{\" } */ b }");
    assert_eq!(brackets(&toks), "{}");
    let names: Vec<&str> = toks.iter().filter_map(Token::ident).collect();
    assert_eq!(names, vec!["a", "b"]);
}

#[test]
fn a_url_in_a_string_is_not_a_comment() {
    let toks = tokens("container 'https://depot.galaxyproject.org/x:1'\nlabel 'y'");
    let strings: Vec<String> = toks.iter().filter_map(Token::constant_str).collect();
    assert_eq!(strings, vec!["https://depot.galaxyproject.org/x:1", "y"]);
}

#[test]
fn slashy_strings_where_an_expression_starts_division_after_an_operand() {
    let toks = tokens(r"ok = id =~ /^SRR\d+}$/ && n / 2 / k");
    let slashy: Vec<&Token> = toks
        .iter()
        .filter(|t| {
            matches!(
                t.tok,
                Tok::Str {
                    quote: Quote::Slashy,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(slashy.len(), 1);
    assert_eq!(slashy[0].constant_str().as_deref(), Some(r"^SRR\d+}$"));
    assert_eq!(toks.iter().filter(|t| t.is_punct("/")).count(), 2);
    assert_eq!(brackets(&toks), "");
}

#[test]
fn slashy_escapes_a_slash() {
    let toks = tokens(r"p = /a\/b/");
    assert_eq!(toks[2].constant_str().as_deref(), Some("a/b"));
}

#[test]
fn dollar_slashy_strings_keep_slashes_and_dollars() {
    let toks = tokens("p = $/a/b$$c $/ d/$\nq = 1");
    assert_eq!(toks[2].constant_str().as_deref(), Some("a/b$c / d"));
    assert!(toks[3].is_ident("q"));
    assert_eq!(toks[3].line, 2);
}

#[test]
fn triple_quoted_strings_span_lines_and_keep_line_numbers() {
    let src = "script:\n\"\"\"\necho '}' \"{\"\n\"\"\"\nafter";
    let toks = tokens(src);
    let after = toks.iter().find(|t| t.is_ident("after")).unwrap();
    assert_eq!(after.line, 5);
    assert!(matches!(
        toks[2].tok,
        Tok::Str {
            quote: Quote::TripleDouble,
            ..
        }
    ));
    assert_eq!(brackets(&toks), "");
}

#[test]
fn interpolations_hold_strings_that_hold_braces() {
    let toks = tokens(r#"container "${ cond ? 'a}' : "b${c.x { "}" }}" }" ; done"#);
    assert_eq!(toks.len(), 4, "{toks:#?}");
    let Tok::Str { parts, .. } = &toks[1].tok else {
        panic!("a string: {toks:#?}")
    };
    let StrPart::Expr(inner) = &parts[0] else {
        panic!("an interpolation: {parts:#?}")
    };
    let strings: Vec<String> = inner.iter().filter_map(Token::constant_str).collect();
    assert_eq!(strings, vec!["a}"]);
    assert!(toks[3].is_ident("done"));
}

#[test]
fn dollar_names_in_strings_are_variables() {
    let toks = tokens(r#"tag "$meta.id-x""#);
    let Tok::Str { parts, .. } = &toks[1].tok else {
        panic!()
    };
    assert_eq!(
        parts,
        &vec![StrPart::Var("meta.id".into()), StrPart::Text("-x".into())]
    );
}

#[test]
fn nested_closures_balance() {
    let src = "ch.map { a -> a.collect { b -> [b, { c -> c }] } }.set { y }\nz";
    let lexed = lex(src.as_bytes(), NESTING);
    let open = lexed.tokens.iter().position(|t| t.is_punct("{")).unwrap();
    let mut depth = 0;
    let mut close = None;
    for (i, t) in lexed.tokens.iter().enumerate().skip(open) {
        if t.is_punct("{") {
            depth += 1;
        } else if t.is_punct("}") {
            depth -= 1;
            if depth == 0 {
                close = Some(i);
                break;
            }
        }
    }
    let close = close.unwrap();
    assert!(lexed.tokens[close + 1].is_punct("."));
    assert!(lexed.tokens[close + 2].is_ident("set"));
}

#[test]
fn an_unterminated_string_ends_at_its_line() {
    let lexed = lex(b"a = 'oops\nb = 2", NESTING);
    assert_eq!(lexed.problems.len(), 1);
    assert_eq!(lexed.problems[0].line, 1);
    assert!(lexed.tokens.iter().any(|t| t.is_ident("b") && t.line == 2));
}

#[test]
fn interpolations_deeper_than_the_limit_stop_with_a_problem() {
    let src = "\"${".repeat(1000);
    let lexed = lex(src.as_bytes(), 8);
    assert!(
        lexed
            .problems
            .iter()
            .any(|p| p.message.contains("nested too deeply"))
    );
}

#[test]
fn a_shebang_line_is_skipped() {
    let toks = tokens("#!/usr/bin/env nextflow\nworkflow {}");
    assert!(toks[0].is_ident("workflow"));
    assert_eq!(toks[0].line, 2);
}
