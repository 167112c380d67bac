//! Building JSON pointers (RFC 6901) so every rule error can name the exact field.

use std::fmt::Display;

/// Joins path segments into a JSON pointer, escaping `~` and `/` inside player names.
pub fn pointer<I, S>(segments: I) -> String
where
    I: IntoIterator<Item = S>,
    S: Display,
{
    let mut out = String::new();
    for segment in segments {
        out.push('/');
        for c in segment.to_string().chars() {
            match c {
                '~' => out.push_str("~0"),
                '/' => out.push_str("~1"),
                c => out.push(c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::pointer;

    #[test]
    fn a_player_name_with_a_slash_is_escaped() {
        assert_eq!(
            pointer(["collections", "A/B~C", "3"]),
            "/collections/A~1B~0C/3"
        );
    }

    #[test]
    fn no_segments_is_the_whole_document() {
        assert_eq!(pointer(Vec::<String>::new()), "");
    }
}
