//! Charts: counts ([`Series`]) → [`Chart`] geometry (rectangles, labels,
//! legend) that the theme's `chart.html` macro draws as inline SVG. No script
//! runs to draw them, and the markup stays in the theme.

use serde::Serialize;

/// Stacked counts: one row per label, one value per category.
#[derive(Debug, Clone)]
pub struct Series {
    /// Category names (stack order), e.g. stages.
    pub categories: Vec<String>,
    /// `(row label, value per category)`.
    pub rows: Vec<(String, Vec<usize>)>,
    /// Colour index per category (`c<N>` classes); by position when empty.
    pub colours: Vec<usize>,
}

impl Series {
    fn class(&self, i: usize) -> String {
        format!("c{}", self.colours.get(i).copied().unwrap_or(i))
    }
}

/// One rectangle.
#[derive(Debug, Clone, Serialize)]
pub struct Rect {
    /// Left.
    pub x: u32,
    /// Top.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
    /// CSS class (`c0`, `c1`, ...).
    pub class: String,
    /// Tooltip text.
    pub title: String,
}

/// A text label.
#[derive(Debug, Clone, Serialize)]
pub struct Label {
    /// Anchor x.
    pub x: u32,
    /// Anchor y.
    pub y: u32,
    /// Text.
    pub text: String,
    /// CSS class for colour swatches in the legend ("" for plain labels).
    pub class: String,
}

/// A drawn chart.
#[derive(Debug, Clone, Serialize)]
pub struct Chart {
    /// Accessible title.
    pub title: String,
    /// Short description for screen readers.
    pub description: String,
    /// viewBox width.
    pub width: u32,
    /// viewBox height.
    pub height: u32,
    /// Bars (segments).
    pub rects: Vec<Rect>,
    /// Row or column labels.
    pub labels: Vec<Label>,
    /// Whether column labels are rotated (vertical charts).
    pub rotate_labels: bool,
    /// Totals drawn at the end of bars.
    pub totals: Vec<Label>,
    /// Legend entries.
    pub legend: Vec<Label>,
}

const LABEL_W: u32 = 170;
const BAR_AREA: u32 = 420;
const ROW_H: u32 = 18;

/// Legend entries, wrapped to `width`; returns them and the height they take.
fn legend(s: &Series, width: u32) -> (Vec<Label>, u32) {
    let (mut x, mut y) = (0, 12);
    let mut out = Vec::new();
    for (i, c) in s.categories.iter().enumerate() {
        let w = 24 + 7 * c.len() as u32;
        if x > 0 && x + w > width {
            x = 0;
            y += 16;
        }
        out.push(Label {
            x,
            y,
            text: c.clone(),
            class: s.class(i),
        });
        x += w;
    }
    (out, y + 12)
}

fn max_total(s: &Series) -> usize {
    s.rows
        .iter()
        .map(|(_, v)| v.iter().sum::<usize>())
        .max()
        .unwrap_or(0)
        .max(1)
}

/// Horizontal stacked bars, one row per label.
pub fn horizontal(title: &str, description: &str, s: &Series) -> Chart {
    let width = LABEL_W + BAR_AREA + 40;
    let (legend, top) = legend(s, width);
    let max = max_total(s);
    let mut rects = Vec::new();
    let mut labels = Vec::new();
    let mut totals = Vec::new();
    for (row, (label, values)) in s.rows.iter().enumerate() {
        let y = top + row as u32 * ROW_H;
        labels.push(Label {
            x: LABEL_W - 6,
            y: y + 13,
            text: label.clone(),
            class: String::new(),
        });
        let mut x = LABEL_W;
        for (i, v) in values.iter().enumerate() {
            if *v == 0 {
                continue;
            }
            let w = ((*v as u64 * BAR_AREA as u64) / max as u64).max(1) as u32;
            rects.push(Rect {
                x,
                y: y + 2,
                w,
                h: ROW_H - 4,
                class: s.class(i),
                title: format!("{label}: {v} {}", s.categories[i]),
            });
            x += w;
        }
        totals.push(Label {
            x: x + 4,
            y: y + 13,
            text: values.iter().sum::<usize>().to_string(),
            class: String::new(),
        });
    }
    Chart {
        title: title.to_string(),
        description: description.to_string(),
        width,
        height: top + s.rows.len() as u32 * ROW_H + 4,
        rects,
        labels,
        rotate_labels: false,
        totals,
        legend,
    }
}

/// Vertical stacked columns, one column per label (e.g. releases over time).
pub fn vertical(title: &str, description: &str, s: &Series) -> Chart {
    const PLOT_H: u32 = 200;
    let col_w: u32 = if s.rows.len() > 30 { 16 } else { 28 };
    let width = (16 + s.rows.len() as u32 * col_w).max(LABEL_W + BAR_AREA + 40);
    let (legend, legend_h) = legend(s, width);
    let max = max_total(s);
    let top = legend_h + 16;
    let mut rects = Vec::new();
    let mut labels = Vec::new();
    let mut totals = Vec::new();
    for (col, (label, values)) in s.rows.iter().enumerate() {
        let x = 8 + col as u32 * col_w;
        let mut y = top + PLOT_H;
        for (i, v) in values.iter().enumerate() {
            if *v == 0 {
                continue;
            }
            let h = ((*v as u64 * PLOT_H as u64) / max as u64).max(1) as u32;
            y -= h;
            rects.push(Rect {
                x,
                y,
                w: col_w - 3,
                h,
                class: s.class(i),
                title: format!("{label}: {v} {}", s.categories[i]),
            });
        }
        let total: usize = values.iter().sum();
        if total > 0 {
            totals.push(Label {
                x: x + col_w / 2 - 1,
                y: y.saturating_sub(3),
                text: total.to_string(),
                class: String::new(),
            });
        }
        labels.push(Label {
            x: x + col_w / 2 - 4,
            y: top + PLOT_H + 10,
            text: label.clone(),
            class: String::new(),
        });
    }
    Chart {
        title: title.to_string(),
        description: description.to_string(),
        width,
        height: top + PLOT_H + 48,
        rects,
        labels,
        rotate_labels: true,
        totals,
        legend,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_row() {
        let s = Series {
            categories: vec!["a".into(), "b".into()],
            rows: vec![("x".into(), vec![2, 2]), ("y".into(), vec![1, 0])],
            colours: vec![],
        };
        let c = horizontal("t", "d", &s);
        assert_eq!(c.rects.len(), 3);
        assert_eq!(c.rects[0].w + c.rects[1].w, BAR_AREA);
        assert_eq!(c.rects[2].w, BAR_AREA / 4);
        let v = vertical("t", "d", &s);
        assert_eq!(v.rects.len(), 3);
    }
}
