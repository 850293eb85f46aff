//! A line typed at a prompt, with the editing keys of a shell: Ctrl-U erases to the start (a
//! stored value offered to change is replaced by typing after it), Ctrl-W the word before the
//! cursor, Ctrl-A / Ctrl-E and the arrows move, and Ctrl-D on an empty line cancels the command
//! like Ctrl-C ([`Fail::Cancelled`]). Drawn with the prompts' theme, on stderr.

use super::context::Fail;
use dialoguer::console::{Key, Term};
use dialoguer::theme::{ColorfulTheme, Theme};

/// The look of every prompt.
pub fn theme() -> ColorfulTheme {
    ColorfulTheme::default()
}

/// How an answer is checked before it is taken: `Err` holds the reason shown while the same
/// question is asked again (`rules`).
pub type Check<'a> = &'a dyn Fn(&str) -> Result<(), String>;

/// What to ask: `label`, `default` taken for an empty answer, `initial` the text to keep or
/// change, `check` run on the trimmed answer (asked again with the reason until it passes), and
/// whether an empty answer is taken (as "").
pub struct Question<'a> {
    pub label: &'a str,
    pub default: Option<&'a str>,
    pub initial: &'a str,
    pub check: Option<Check<'a>>,
    pub allow_empty: bool,
}

fn text(format: impl FnOnce(&mut String) -> std::fmt::Result) -> String {
    let mut s = String::new();
    // Writing into a String cannot fail.
    let _ = format(&mut s);
    s
}

/// The answer, untrimmed (the default when the answer is empty).
pub fn read(q: Question) -> Result<String, Fail> {
    let term = Term::stderr();
    if !term.is_term() {
        return Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "not a terminal").into());
    }
    let theme = theme();
    let head = text(|s| theme.format_input_prompt(s, q.label, q.default));
    loop {
        let typed = edit(&term, &head, q.initial)?;
        match typed.and_then(|typed| taken(&q, typed)) {
            Ok(answer) => {
                term.clear_line()?;
                term.write_line(&text(|s| {
                    theme.format_input_prompt_selection(s, q.label, &answer)
                }))?;
                return Ok(answer);
            }
            Err(reason) => {
                term.write_line("")?;
                term.write_line(&text(|s| theme.format_error(s, &reason)))?;
            }
        }
    }
}

/// The reason given for a blank answer to a question that needs one.
pub const REQUIRED: &str = "is required";

/// The reason given for an answer of which some keys were not UTF-8 text (a terminal in a Latin-1
/// locale sends `ã` as one byte): read as they came, its letters would be lost without a word.
pub const NOT_UTF8: &str = "the terminal sent text that is not UTF-8: set a UTF-8 locale in it \
     (LANG=pt_BR.UTF-8) and type the answer again";

/// What `typed` answers to `q`: the answer (the default for a blank one), or the reason it is
/// asked again — [`REQUIRED`] for a blank answer with no default, else the check's.
fn taken(q: &Question, typed: String) -> Result<String, String> {
    let blank = typed.trim().is_empty();
    let answer = match (blank, q.default) {
        (true, Some(d)) => d.to_owned(),
        (true, None) if q.allow_empty => return Ok(typed),
        (true, None) => return Err(REQUIRED.to_owned()),
        (false, _) => typed,
    };
    match q.check.map(|c| c(answer.trim())) {
        Some(Err(reason)) => Err(reason),
        _ => Ok(answer),
    }
}

/// One line edited after `head`, starting from `initial`, until Enter: the line, or [`NOT_UTF8`]
/// when a key typed was not UTF-8 text.
fn edit(term: &Term, head: &str, initial: &str) -> Result<Result<String, String>, Fail> {
    let mut chars: Vec<char> = initial.chars().collect();
    let mut pos = chars.len();
    let mut garbled = false;
    redraw(term, head, &chars, pos)?;
    loop {
        let key = match term.read_key() {
            Ok(key) => key,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Err(Fail::Cancelled),
            Err(e) => return Err(e.into()),
        };
        match key {
            Key::Enter if garbled => return Ok(Err(NOT_UTF8.to_owned())),
            Key::Enter => return Ok(Ok(chars.into_iter().collect())),
            Key::Unknown => garbled = true,
            Key::Char('\u{4}') if chars.is_empty() => {
                term.write_line("")?;
                return Err(Fail::Cancelled);
            }
            // Typed at the end, as most keys are: only the character is written.
            Key::Char(c) if !c.is_control() && pos == chars.len() => {
                chars.push(c);
                pos += 1;
                term.write_str(c.encode_utf8(&mut [0; 4]))?;
                continue;
            }
            Key::Char(c) if !c.is_control() => {
                chars.insert(pos, c);
                pos += 1;
            }
            Key::Char('\u{15}') => {
                chars.drain(..pos);
                pos = 0;
            }
            Key::Char('\u{17}') => {
                let start = word_start(&chars, pos);
                chars.drain(start..pos);
                pos = start;
            }
            Key::Char('\u{1}') | Key::Home => pos = 0,
            Key::Char('\u{5}') | Key::End => pos = chars.len(),
            Key::Backspace if pos > 0 => {
                pos -= 1;
                chars.remove(pos);
            }
            Key::Del if pos < chars.len() => {
                chars.remove(pos);
            }
            Key::ArrowLeft if pos > 0 => pos -= 1,
            Key::ArrowRight if pos < chars.len() => pos += 1,
            _ => continue,
        }
        redraw(term, head, &chars, pos)?;
    }
}

/// A password typed after `label`, never shown: asked again with the reason while `check`
/// refuses it (a blank one is [`REQUIRED`]); Ctrl-D on an empty line cancels like Ctrl-C, Ctrl-U
/// erases, Backspace takes back the last character.
pub fn secret(label: &str, check: Check) -> Result<String, Fail> {
    let term = Term::stderr();
    if !term.is_term() {
        return Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "not a terminal").into());
    }
    let theme = theme();
    let head = text(|s| theme.format_password_prompt(s, label));
    loop {
        term.write_str(&head)?;
        term.flush()?;
        let mut typed = String::new();
        let mut garbled = false;
        loop {
            let key = match term.read_key() {
                Ok(key) => key,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    return Err(Fail::Cancelled);
                }
                Err(e) => return Err(e.into()),
            };
            match key {
                Key::Enter => break,
                Key::Char('\u{4}') if typed.is_empty() => {
                    term.write_line("")?;
                    return Err(Fail::Cancelled);
                }
                Key::Char('\u{15}') => typed.clear(),
                Key::Backspace => {
                    typed.pop();
                }
                Key::Char(c) if !c.is_control() => typed.push(c),
                Key::Unknown => garbled = true,
                _ => {}
            }
        }
        term.clear_line()?;
        let reason = match (garbled, typed.is_empty()) {
            (true, _) => Err(NOT_UTF8.to_owned()),
            (false, true) => Err(REQUIRED.to_owned()),
            (false, false) => check(&typed),
        };
        match reason {
            Ok(()) => {
                term.write_line(&text(|s| theme.format_password_prompt_selection(s, label)))?;
                return Ok(typed);
            }
            Err(reason) => {
                term.write_line(&text(|s| theme.format_password_prompt_selection(s, label)))?;
                term.write_line(&text(|s| theme.format_error(s, &reason)))?;
            }
        }
    }
}

fn redraw(term: &Term, head: &str, chars: &[char], pos: usize) -> std::io::Result<()> {
    term.clear_line()?;
    term.write_str(head)?;
    term.write_str(&chars.iter().collect::<String>())?;
    term.move_cursor_left(chars.len() - pos)?;
    term.flush()
}

/// Where the word before `pos` starts (the spaces before it included), for Ctrl-W.
fn word_start(chars: &[char], pos: usize) -> usize {
    let mut i = pos;
    while i > 0 && chars[i - 1] == ' ' {
        i -= 1;
    }
    while i > 0 && chars[i - 1] != ' ' {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::{Question, REQUIRED, taken, word_start};

    fn question<'a>(check: Option<super::Check<'a>>, allow_empty: bool) -> Question<'a> {
        Question {
            label: "Name",
            default: None,
            initial: "",
            check,
            allow_empty,
        }
    }

    #[test]
    fn a_blank_answer_is_asked_again_with_the_reason() {
        let not_blank = |s: &str| {
            if s.is_empty() {
                Err("never".into())
            } else {
                Ok(())
            }
        };
        for typed in ["", "   "] {
            assert_eq!(
                taken(&question(None, false), typed.into()),
                Err(REQUIRED.into())
            );
            let checked = question(Some(&not_blank), false);
            assert_eq!(taken(&checked, typed.into()), Err(REQUIRED.into()));
        }
        // An optional answer may be blank, unchecked; a default answers a blank one.
        assert_eq!(
            taken(&question(Some(&not_blank), true), "".into()),
            Ok("".into())
        );
        let with_default = Question {
            default: Some("PE"),
            ..question(None, false)
        };
        assert_eq!(taken(&with_default, " ".into()), Ok("PE".into()));
        let short = |s: &str| {
            if s.len() < 3 {
                Err("too short".into())
            } else {
                Ok(())
            }
        };
        assert_eq!(
            taken(&question(Some(&short), false), "ab".into()),
            Err("too short".into())
        );
    }

    #[test]
    fn ctrl_w_takes_the_word_before_the_cursor() {
        let chars: Vec<char> = "Rua da Aurora, 100  ".chars().collect();
        assert_eq!(word_start(&chars, chars.len()), 15);
        assert_eq!(word_start(&chars, 3), 0);
        assert_eq!(word_start(&chars, 0), 0);
    }
}
