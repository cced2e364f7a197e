//! A small SVG line chart: precision, recall and F1 against the threshold,
//! for `neardup eval --sweep`.

use std::fmt::Write;

/// One point of the curve.
#[derive(Debug, Clone, Copy)]
pub struct CurvePoint {
    /// The threshold.
    pub threshold: f64,
    /// Pairwise precision.
    pub precision: f64,
    /// Pairwise recall.
    pub recall: f64,
    /// Pairwise F1.
    pub f1: f64,
}

/// A named, coloured series of the chart.
type Series = (&'static str, &'static str, fn(&CurvePoint) -> f64);

const W: f64 = 640.0;
const H: f64 = 400.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 130.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

/// Renders the curve as a standalone SVG document.
pub fn curve_svg(title: &str, xlabel: &str, points: &[CurvePoint]) -> String {
    let (x0, x1) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.threshold), hi.max(p.threshold))
        });
    let (x0, x1) = if x0.is_finite() && x1 > x0 {
        (x0, x1)
    } else {
        (0.0, 1.0)
    };
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let py = |y: f64| TOP + (1.0 - y.clamp(0.0, 1.0)) * (H - TOP - BOTTOM);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#,
        W / 2.0,
        escape(title)
    );
    for i in 0..=10 {
        let y = i as f64 / 10.0;
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            W - RIGHT,
            py(y),
            py(y)
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{y:.1}</text>"#,
            LEFT - 6.0,
            py(y) + 4.0
        );
    }
    for p in points {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="10">{:.2}</text>"#,
            px(p.threshold),
            H - BOTTOM + 16.0,
            p.threshold
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        H - 12.0,
        escape(xlabel)
    );
    let series: [Series; 3] = [
        ("precision", "#1f77b4", |p| p.precision),
        ("recall", "#ff7f0e", |p| p.recall),
        ("F1", "#2ca02c", |p| p.f1),
    ];
    for (k, (name, color, get)) in series.iter().enumerate() {
        let path: Vec<String> = points
            .iter()
            .map(|p| format!("{:.1},{:.1}", px(p.threshold), py(get(p))))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        for p in points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{color}"/>"#,
                px(p.threshold),
                py(get(p))
            );
        }
        let ly = TOP + 20.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{}" x2="{}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"/>"#,
            W - RIGHT + 15.0,
            W - RIGHT + 40.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}">{name}</text>"#,
            W - RIGHT + 46.0,
            ly + 4.0
        );
    }
    if let Some(best) = points.iter().max_by(|a, b| a.f1.total_cmp(&b.f1)) {
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" x2="{:.1}" y1="{TOP}" y2="{}" stroke="#2ca02c" stroke-dasharray="4 3"/>"##,
            px(best.threshold),
            px(best.threshold),
            H - BOTTOM
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}">best F1 {:.3}</text>"#,
            W - RIGHT + 15.0,
            TOP + 70.0,
            best.f1
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}">at {:.2}</text>"#,
            W - RIGHT + 15.0,
            TOP + 86.0,
            best.threshold
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_all_series_and_the_best_point() {
        let pts: Vec<CurvePoint> = (0..5)
            .map(|i| {
                let t = 0.5 + i as f64 * 0.1;
                CurvePoint {
                    threshold: t,
                    precision: t,
                    recall: 1.0 - t / 2.0,
                    f1: 0.8 - (t - 0.7).abs(),
                }
            })
            .collect();
        let svg = curve_svg("minhash <dev>", "threshold", &pts);
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 3);
        assert!(svg.contains("best F1 0.800"));
        assert!(svg.contains("at 0.70"));
        assert!(svg.contains("minhash &lt;dev&gt;"));
    }
}
