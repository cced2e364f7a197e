//! Charset decisions on pages whose declaration lies: CJK multi-byte pages
//! under a single-byte declaration are detected, real windows-1252 pages
//! keep their declaration.

use neardup_io::{decode_html, CharsetSource};

#[test]
fn cjk_pages_under_a_single_byte_declaration_are_detected() {
    let cases = [
        (
            encoding_rs::SHIFT_JIS,
            "日本語のウェブページです。東京都の天気は晴れ、明日は雨になるでしょう。",
        ),
        (
            encoding_rs::EUC_JP,
            "日本語のウェブページです。東京都の天気は晴れ、明日は雨になるでしょう。",
        ),
        (
            encoding_rs::GB18030,
            "这是一个中文网页。北京今天天气晴朗，明天可能会下雨。",
        ),
        (
            encoding_rs::BIG5,
            "這是一個中文網頁。台北今天天氣晴朗，明天可能會下雨。",
        ),
        (
            encoding_rs::EUC_KR,
            "이것은 한국어 웹 페이지입니다. 서울의 날씨는 맑고 내일은 비가 올 것입니다.",
        ),
    ];
    for (enc, text) in cases {
        for decl in ["windows-1252", "iso-8859-1"] {
            let html = format!("<meta charset={decl}><p>{}</p>", text.repeat(3));
            let (bytes, _, _) = enc.encode(&html);
            let d = decode_html(&bytes, None);
            assert!(
                d.text.contains(text),
                "{} as {decl}: {} ({})",
                enc.name(),
                d.charset,
                d.text
            );
            assert_eq!(d.source, CharsetSource::Detected);
            let d = decode_html(&bytes, Some(&format!("text/html; charset={decl}")));
            assert!(
                d.text.contains(text),
                "{} in HTTP as {decl}: {}",
                enc.name(),
                d.charset
            );
        }
    }
}

#[test]
fn real_windows_1252_pages_stay_windows_1252() {
    let texts = [
        "Le café de la gare ouvre à sept heures ; les élèves y déjeunent. Où est la bibliothèque ? À côté.",
        "Die Straße führt über die Brücke; Bäcker öffnen früh. Größere Häuser stehen am Fluß.",
        "Señor Muñoz compró piñas y jalapeños en la ciudad; ¿dónde está el niño? ¡Aquí!",
        "Prices: 5€ – “quoted” text… and © 2020 ® ™ • bullets — em dashes ‘single’ quotes.",
    ];
    for text in texts {
        let html = format!("<meta charset=windows-1252><p>{}</p>", text.repeat(4));
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&html);
        let d = decode_html(&bytes, None);
        assert_eq!(d.charset, "windows-1252", "{text}");
        assert_eq!(d.source, CharsetSource::Meta);
        assert!(d.text.contains(text));
    }
}
