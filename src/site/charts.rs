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
const LEGEND_H: u32 = 24;

fn legend(categories: &[String], y: u32) -> Vec<Label> {
    let mut x = 0;
    categories
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let l = Label {
                x,
                y,
                text: c.clone(),
                class: format!("c{i}"),
            };
            x += 24 + 8 * c.len() as u32;
            l
        })
        .collect()
}

/// Horizontal stacked bars, one row per label.
pub fn horizontal(title: &str, description: &str, s: &Series) -> Chart {
    let max = s
        .rows
        .iter()
        .map(|(_, v)| v.iter().sum::<usize>())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut rects = Vec::new();
    let mut labels = Vec::new();
    let mut totals = Vec::new();
    for (row, (label, values)) in s.rows.iter().enumerate() {
        let y = LEGEND_H + row as u32 * ROW_H;
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
                class: format!("c{i}"),
                title: format!("{label}: {v} {}", s.categories[i]),
            });
            x += w;
        }
        let total: usize = values.iter().sum();
        totals.push(Label {
            x: x + 4,
            y: y + 13,
            text: total.to_string(),
            class: String::new(),
        });
    }
    Chart {
        title: title.to_string(),
        description: description.to_string(),
        width: LABEL_W + BAR_AREA + 40,
        height: LEGEND_H + s.rows.len() as u32 * ROW_H + 4,
        rects,
        labels,
        rotate_labels: false,
        totals,
        legend: legend(&s.categories, 12),
    }
}

/// Vertical stacked columns, one column per label (e.g. releases over time).
pub fn vertical(title: &str, description: &str, s: &Series) -> Chart {
    const PLOT_H: u32 = 200;
    let col_w: u32 = if s.rows.len() > 30 { 16 } else { 24 };
    let max = s
        .rows
        .iter()
        .map(|(_, v)| v.iter().sum::<usize>())
        .max()
        .unwrap_or(0)
        .max(1);
    let top = LEGEND_H + 16;
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
                class: format!("c{i}"),
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
            x: x + col_w / 2,
            y: top + PLOT_H + 8,
            text: label.clone(),
            class: String::new(),
        });
    }
    Chart {
        title: title.to_string(),
        description: description.to_string(),
        width: (16 + s.rows.len() as u32 * col_w).max(360),
        height: top + PLOT_H + 48,
        rects,
        labels,
        rotate_labels: true,
        totals,
        legend: legend(&s.categories, 12),
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
        };
        let c = horizontal("t", "d", &s);
        assert_eq!(c.rects.len(), 3);
        assert_eq!(c.rects[0].w + c.rects[1].w, BAR_AREA);
        assert_eq!(c.rects[2].w, BAR_AREA / 4);
        let v = vertical("t", "d", &s);
        assert_eq!(v.rects.len(), 3);
    }
}
