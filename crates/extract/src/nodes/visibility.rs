//! Elements hidden from the reader: by an inline style, by the search
//! engines' `data-nosnippet` mark, or as a modal dialog; and the panels a
//! style hides that are still the page's (accordions, tab panels).

use crate::dom::{Dom, NodeData, NodeId};

/// Is the element hidden by its inline style, or marked by the site as
/// text that does not stand for the page (`data-nosnippet`, the search
/// engines' mark for cookie notices, sign-in prompts, legal lines)?
///
/// A panel named by its toggle or tab (`aria-labelledby`, the ARIA
/// pattern of accordions, disclosures and tab panels), or said to be a tab
/// panel by its role (`tabpanel`), that its style
/// hides is a collapsed part of the page the reader opens in place (a
/// product's specifications, an answer of a FAQ): its text is the page's.
/// Not a dialog's: a modal window is never the page.
pub(crate) fn hidden(dom: &Dom, id: NodeId) -> bool {
    // Neither `aria-hidden` (it hides decoration from screen readers while
    // the text stays on screen) nor the `hidden` attribute (streaming
    // server-side rendering parks real content in `<div hidden>` until a
    // script moves it into place) is taken as invisibility.
    marks(dom, id)
        .is_some_and(|m| m.nosnippet || (m.styled && !m.panel()) || (m.dialog && !m.modeless))
}

/// Is the element a panel named by its toggle or tab (`aria-labelledby`),
/// or a tab panel by its role, that is not a dialog: a collapsed part of
/// the page (an accordion's panel, a tab panel) the reader opens in place?
pub(crate) fn collapsed_panel(dom: &Dom, id: NodeId) -> bool {
    marks(dom, id).is_some_and(|m| m.panel())
}

/// What an element's attributes say of whether it is shown.
#[derive(Default)]
struct Marks {
    /// Its inline style hides it.
    styled: bool,
    /// `data-nosnippet`.
    nosnippet: bool,
    /// Its role is a dialog's.
    dialog: bool,
    /// `aria-modal="false"`.
    modeless: bool,
    /// Named by its toggle or tab (`aria-labelledby`), or a tab panel by
    /// its role.
    labelled: bool,
}

impl Marks {
    /// A collapsed panel of the page, not a dialog.
    fn panel(&self) -> bool {
        self.labelled && !self.dialog
    }
}

/// The marks of element `id`, in one look at each attribute, by name as a
/// string (`data-nosnippet` and `aria-modal` are no static atoms): this
/// runs on every element. `None` for other nodes.
fn marks(dom: &Dom, id: NodeId) -> Option<Marks> {
    let Some(NodeData::Element { attrs, .. }) = dom.get(id).map(|n| &n.data) else {
        return None;
    };
    let mut m = Marks::default();
    for a in attrs {
        match &*a.name.local {
            "style" => m.styled |= style_hides(&a.value),
            "data-nosnippet" => m.nosnippet = true,
            "role" => {
                m.dialog = is_dialog_role(&a.value);
                m.labelled |= is_tab_panel(&a.value);
            }
            "aria-modal" => m.modeless = a.value.trim().eq_ignore_ascii_case("false"),
            "aria-labelledby" => m.labelled = true,
            _ => {}
        }
    }
    Some(m)
}

/// Is the role a tab panel's (`tabpanel`)? The role says what a label
/// would: the element is the panel of a tab, a part of the page shown when
/// its tab is chosen.
fn is_tab_panel(role: &str) -> bool {
    role.trim().eq_ignore_ascii_case("tabpanel")
}

/// Is the role a dialog's (`dialog` or `alertdialog`)? A modal dialog (not
/// said to be `aria-modal="false"`) is a window (a policy, a size chart, a
/// sign-up form, a menu) that the page shows over its content when asked,
/// never its content. A dialog that is not modal is a panel of the page
/// (a description sheet beside the product).
fn is_dialog_role(role: &str) -> bool {
    let r = role.trim();
    r.eq_ignore_ascii_case("dialog") || r.eq_ignore_ascii_case("alertdialog")
}

/// Does an inline style hide its element (`display:none` or
/// `visibility:hidden`, white space and case aside)?
pub(crate) fn style_hides(style: &str) -> bool {
    let maybe = style.len() < 2048
        && (style.contains("none")
            || style.contains("hidden")
            || style.contains("NONE")
            || style.contains("HIDDEN"));
    if !maybe {
        return false;
    }
    let compact: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

#[cfg(test)]
mod tests {
    use crate::analyze::analyze;
    use crate::parse::parse;

    #[test]
    fn modal_dialogs_are_not_shown() {
        let policy = "<p>Returns are accepted within thirty days of purchase.</p>";
        let dom = parse(
            &format!(
                "<body><p>The product.</p><div role=dialog>{policy}</div>\
                 <div role=' AlertDialog ' aria-modal=true>{policy}</div>\
                 <div role=dialog aria-modal=false><p>A sheet beside it.</p></div></body>"
            ),
            512,
        );
        let a = analyze(&dom);
        let body = dom.find_element("body").expect("body");
        // "The product." and "A sheet beside it.": the modal policies are
        // not on screen, the panel that is not modal is.
        assert_eq!(a.tokens[body], 6);
    }

    #[test]
    fn collapsed_panels_named_by_their_toggle_are_shown() {
        let spec = "<p>Seat height: twenty inches, adjustable by three more.</p>";
        let html = format!(
            "<body><p>The chair.</p>\
             <h2><button aria-expanded=false aria-controls=p1>Specifications</button></h2>\
             <div id=p1 role=region aria-labelledby=t1 style='display:none'>{spec}</div>\
             <div style='display: none'><p>An unnamed hidden copy.</p></div>\
             <div role=dialog aria-labelledby=t2 aria-modal=false style='display:none'>{spec}</div>\
             </body>"
        );
        // Through the pre-filter, as the extractor reads the page.
        let dom = crate::parse::parse_tendril(crate::prefilter::prefilter(&html), 512);
        let a = analyze(&dom);
        let body = dom.find_element("body").expect("body");
        // "The chair." and the panel's eight words (a button's label is
        // no text); the hidden copy and the hidden dialog stay hidden.
        assert_eq!(a.tokens[body], 10);
    }

    #[test]
    fn collapsed_panels_whose_class_says_hidden_are_content() {
        let answer = "<p>Seat height: twenty inches, adjustable by three more.</p>";
        let html = format!(
            "<body><h1>The chair</h1><dl>\
             <dt><button aria-controls=p1 aria-expanded=false id=b1>Size</button></dt>\
             <dd id=p1 class='accordion__panel accordion__panel--hidden' aria-labelledby=b1 hidden>{answer}</dd>\
             </dl><div class='panel is-hidden'>{answer}</div>\
             <div class='sidebar is-hidden' aria-labelledby=b1>{answer}</div>\
             <div role=dialog class=hidden aria-labelledby=b1>{answer}</div></body>"
        );
        let dom = crate::parse::parse_tendril(crate::prefilter::prefilter(&html), 512);
        let a = analyze(&dom);
        let boiler: Vec<bool> = ["dd", "div"]
            .iter()
            .map(|t| a.boiler[dom.find_element(t).expect("element")])
            .collect();
        // The labelled panel is the page's; an unnamed hidden block is not.
        assert_eq!(boiler, [false, true]);
        // Neither is a labelled sidebar, nor a labelled dialog.
        let flagged = a
            .order
            .iter()
            .filter(|&&id| dom.local_name(id).is_some_and(|n| &**n == "div") && a.boiler[id])
            .count();
        assert_eq!(flagged, 3);
    }

    #[test]
    fn tab_panels_by_their_role_are_shown() {
        let spec = "<p>Seat height: twenty inches, adjustable by three more.</p>";
        let html = format!(
            "<body><p>The chair.</p><ul role=tablist><li role=tab>Size</li></ul>\
             <div role=' TabPanel ' style='display:none'>{spec}</div>\
             <div role=tabpanel class='tab-content is-hidden'>{spec}</div>\
             <div role=tab style='display:none'><p>Hidden tab name</p></div>\
             <div role=region style='display:none'><p>A hidden region.</p></div></body>"
        );
        let dom = crate::parse::parse_tendril(crate::prefilter::prefilter(&html), 512);
        let a = analyze(&dom);
        let body = dom.find_element("body").expect("body");
        // "The chair.", "Size" and both panels' eight words.
        assert_eq!(a.tokens[body], 2 + 1 + 2 * 8);
        let panels = a
            .order
            .iter()
            .filter(|&&id| dom.attr(id, &html5ever::local_name!("role")) == Some("tabpanel"))
            .filter(|&&id| !a.boiler[id])
            .count();
        assert_eq!(panels, 1);
    }
}
