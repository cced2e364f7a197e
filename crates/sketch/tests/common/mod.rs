//! Deterministic synthetic documents for the integration tests.
#![allow(dead_code)]

/// splitmix64 stream.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n.max(1)
    }
}

const SYLLABLES: [&str; 24] = [
    "ka", "lo", "mi", "ter", "an", "so", "rel", "vi", "pu", "den", "gra", "ot", "ble", "is", "mon",
    "ra", "che", "tu", "wel", "fi", "nor", "ex", "ba", "li",
];

/// The word of rank `r` (rank 0 is the most frequent).
pub fn word(r: usize) -> String {
    let mut s = String::new();
    let mut x = r + 1;
    while x > 0 {
        s.push_str(SYLLABLES[x % SYLLABLES.len()]);
        x /= SYLLABLES.len();
    }
    s
}

/// A Zipf-like rank among `v` words.
pub fn zipf(rng: &mut Rng, v: usize) -> usize {
    ((v as f64).powf(rng.unit()) as usize)
        .saturating_sub(1)
        .min(v - 1)
}

/// An English-like document: paragraphs of sentences of words.
pub fn english(seed: u64, paragraphs: usize) -> Vec<String> {
    let mut rng = Rng(seed);
    (0..paragraphs)
        .map(|_| {
            let mut p = String::new();
            for _ in 0..4 + rng.below(3) {
                let n = 8 + rng.below(12);
                let words: Vec<String> = (0..n).map(|_| word(zipf(&mut rng, 5000))).collect();
                let mut s = words.join(" ");
                if let Some(first) = s.get_mut(0..1) {
                    first.make_ascii_uppercase();
                }
                p.push_str(&s);
                p.push_str(if rng.below(8) == 0 {
                    ", indeed. "
                } else {
                    ". "
                });
            }
            p.trim_end().to_string()
        })
        .collect()
}

/// A CJK character of rank `r`.
pub fn han(r: usize) -> char {
    char::from_u32(0x4E00 + ((r * 7919) % 20000) as u32).unwrap_or('中')
}

/// A Chinese-like document: paragraphs of clauses of characters.
pub fn chinese(seed: u64, paragraphs: usize) -> Vec<String> {
    let mut rng = Rng(seed);
    (0..paragraphs)
        .map(|_| {
            let mut p = String::new();
            for _ in 0..3 + rng.below(3) {
                for c in 0..1 + rng.below(3) {
                    if c > 0 {
                        p.push('，');
                    }
                    for _ in 0..6 + rng.below(12) {
                        p.push(han(zipf(&mut rng, 3000)));
                    }
                }
                p.push('。');
            }
            p
        })
        .collect()
}

/// Replaces about `rate` of the tokens (words, or CJK characters) with
/// random other ones, keeping the layout.
pub fn edit(paragraphs: &[String], rate: f64, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    paragraphs
        .iter()
        .map(|p| {
            let mut out = String::new();
            let mut in_word = false;
            for c in p.chars() {
                let cjk = ('\u{4E00}'..='\u{9FFF}').contains(&c);
                let start = c.is_ascii_alphabetic() && !in_word;
                in_word = c.is_ascii_alphabetic();
                if (cjk || start) && rng.unit() < rate {
                    if cjk {
                        out.push(han(3000 + rng.below(5000)));
                        continue;
                    }
                    out.push_str(&word(5000 + rng.below(5000)));
                    out.push('\u{0}'); // marks the rest of the word for removal
                    continue;
                }
                out.push(c);
            }
            // Drop the remainders of replaced words.
            let mut cleaned = String::new();
            let mut skipping = false;
            for c in out.chars() {
                if c == '\u{0}' {
                    skipping = true;
                    continue;
                }
                if skipping && c.is_ascii_alphabetic() {
                    continue;
                }
                skipping = false;
                cleaned.push(c);
            }
            cleaned
        })
        .collect()
}

pub fn join(paragraphs: &[String]) -> String {
    paragraphs.join("\n")
}
