//! A reader and writer for the small, flat XML BoardGameGeek serves.

use std::collections::BTreeMap;

use tabletally_domain::Message;

/// An XML element's name and attributes.
type Element = (String, BTreeMap<String, String>);

/// The elements of a plays file with their attributes, in document order (a reader for the
/// small, flat XML that BoardGameGeek serves; no DTDs, no namespaces).
pub(super) fn xml_elements(text: &str) -> Result<Vec<Element>, Message> {
    let mut elements = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        if let Some(after) = rest.strip_prefix("!--") {
            let end = after.find("-->").ok_or_else(|| {
                tabletally_domain::said!("server.api.import.xml_comment_not_closed")
            })?;
            rest = &after[end + 3..];
            continue;
        }
        let end = rest
            .find('>')
            .ok_or_else(|| tabletally_domain::said!("server.api.import.xml_tag_not_closed"))?;
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('/') || tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let tag = tag.trim_end_matches('/').trim();
        let (name, mut attributes) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        let mut parsed = BTreeMap::new();
        while let Some(eq) = attributes.find('=') {
            let key = attributes[..eq].trim().to_owned();
            let value_part = attributes[eq + 1..].trim_start();
            let quote = value_part.chars().next().ok_or_else(|| {
                tabletally_domain::said!("server.api.import.xml_attribute_no_value")
            })?;
            if quote != '"' && quote != '\'' {
                return Err(tabletally_domain::said!(
                    "server.api.import.xml_attribute_not_quoted",
                    key = key
                ));
            }
            let close = value_part[1..].find(quote).ok_or_else(|| {
                tabletally_domain::said!("server.api.import.xml_attribute_not_closed", key = &key)
            })?;
            parsed.insert(key, xml_unescape(&value_part[1..close + 1]));
            attributes = &value_part[close + 2..];
        }
        elements.push((name.to_owned(), parsed));
    }
    Ok(elements)
}

fn xml_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest.find(';') else { break };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

pub(super) fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_xml_is_read_element_by_element_with_entities_decoded() {
        let xml = r#"<?xml version="1.0"?><plays><!-- a comment --><play id="7" date="2015-12-27">
            <item name="Tom &amp; Jerry&#39;s" objectid="5"/><players>
            <player name="Ann" score="41" win='1'/></players></play></plays>"#;

        let elements = xml_elements(xml).unwrap();

        let names: Vec<&str> = elements.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(names, vec!["plays", "play", "item", "players", "player"]);
        assert_eq!(elements[2].1["name"], "Tom & Jerry's");
        assert_eq!(elements[4].1["win"], "1");
        assert_eq!(
            xml_escape("A&B \"C\" <D>"),
            "A&amp;B &quot;C&quot; &lt;D&gt;"
        );
    }
}
