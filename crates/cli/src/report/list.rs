//! The list of groups, largest first, in static pages of `page_size` rows:
//! the first on `index.html`, the others `list/N.html`, each with links to
//! the others (readable without JavaScript). The filter box searches every
//! group, not only the page's: its script loads `search.js`, a compact
//! index of all groups (id, URL, size), when something is typed.

use std::fmt::Write as _;

use serde_json::json;

use super::html::{escape, url_link};
use super::GroupRow;

/// The directory of the list pages after the first.
pub const LIST_DIR: &str = "list";
/// The search index's file name.
pub const SEARCH_FILE: &str = "search.js";
/// Matches of the filter shown at most.
pub const MAX_MATCHES: usize = 500;

/// Where a list page is: `index.html` for page 1, `list/N.html` after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListPage {
    /// Its number, from 1.
    pub number: usize,
    /// Pages in all (at least 1).
    pub pages: usize,
    /// Rows per page.
    pub size: usize,
}

impl ListPage {
    /// The path of the site's root as seen from this page.
    fn root(&self) -> &'static str {
        if self.number == 1 {
            ""
        } else {
            "../"
        }
    }

    /// The link from this page to page `n`.
    fn link(&self, n: usize) -> String {
        match (self.number == 1, n == 1) {
            (_, true) => format!("{}index.html", self.root()),
            (true, false) => format!("{LIST_DIR}/{n}.html"),
            (false, false) => format!("{n}.html"),
        }
    }
}

/// How many list pages `groups` rows take at `size` rows a page.
pub fn page_count(groups: usize, size: usize) -> usize {
    groups.div_ceil(size.max(1)).max(1)
}

/// The links between list pages: first, previous, a window of numbers,
/// next, last.
fn pager(p: &ListPage, groups: usize) -> String {
    if p.pages <= 1 {
        return String::new();
    }
    let first = (p.number - 1) * p.size + 1;
    let last = (p.number * p.size).min(groups);
    let mut b = format!(
        "<nav class=\"pager\" aria-label=\"pages of groups\"><p>Groups {first}–{last} of {groups}, \
         page {} of {}:",
        p.number, p.pages
    );
    let link = |b: &mut String, n: usize, label: &str, rel: &str| {
        if n == p.number {
            let _ = write!(b, " <strong aria-current=\"page\">{label}</strong>");
        } else {
            let _ = write!(b, " <a href=\"{}\"{rel}>{label}</a>", p.link(n));
        }
    };
    if p.number > 1 {
        link(&mut b, p.number - 1, "previous", " rel=\"prev\"");
    }
    let window = 3;
    let lo = p.number.saturating_sub(window).max(1);
    let hi = (p.number + window).min(p.pages);
    if lo > 1 {
        link(&mut b, 1, "1", "");
        if lo > 2 {
            b.push_str(" …");
        }
    }
    for n in lo..=hi {
        link(&mut b, n, &n.to_string(), "");
    }
    if hi < p.pages {
        if hi + 1 < p.pages {
            b.push_str(" …");
        }
        link(&mut b, p.pages, &p.pages.to_string(), "");
    }
    if p.number < p.pages {
        link(&mut b, p.number + 1, "next", " rel=\"next\"");
    }
    b.push_str("</p></nav>\n");
    b
}

/// The filter's script: with something typed, loads the search index once
/// and lists the groups (of every page) whose id or URL contains it; with
/// nothing typed, the page's own rows. Without JavaScript the box stays
/// hidden and the pages are complete.
const FILTER: &str = r#"<script>
(function(){
var f=document.getElementById('filter'),t=document.getElementById('groups'),body=t.tBodies[0];
var note=document.getElementById('filter-note'),own=Array.prototype.slice.call(body.rows);
var root=t.getAttribute('data-root'),index=null,loading=false;
f.hidden=false;
function cell(tr,x,cls){var td=document.createElement('td');if(cls)td.className=cls;
 if(x instanceof Node)td.appendChild(x);else td.textContent=x;tr.appendChild(td);}
function show(){var q=f.value.trim().toLowerCase();
 if(q===''){body.replaceChildren.apply(body,own);note.textContent='';return;}
 if(!index){note.textContent='Loading the search index…';load();return;}
 var rows=[],found=0;
 for(var i=0;i<index.ids.length;i++){
  if(index.ids[i].toLowerCase().indexOf(q)<0&&index.links[i].toLowerCase().indexOf(q)<0)continue;
  found++;if(rows.length>=index.max)continue;
  var tr=document.createElement('tr'),n=i+1,id=index.ids[i],u=index.links[i];
  cell(tr,String(n),'num');cell(tr,String(index.sizes[i]),'num');
  if(n<=index.paged){var a=document.createElement('a');a.href=root+'groups/'+n+'.html';a.textContent=id;cell(tr,a);}
  else cell(tr,id);
  if(/^https?:\/\//.test(u)){var l=document.createElement('a');l.className='orig';l.rel='noreferrer noopener';l.href=u;l.textContent=u;cell(tr,l);}
  else cell(tr,u);
  rows.push(tr);}
 body.replaceChildren.apply(body,rows);
 note.textContent=found===0?'No group matches.':found>rows.length?found+' groups match; the first '+rows.length+' are listed.':found+(found===1?' group matches.':' groups match.');}
function load(){if(loading)return;loading=true;var s=document.createElement('script');s.src=root+'search.js';
 s.onerror=function(){note.textContent='The search index (search.js) could not be loaded.';};
 document.head.appendChild(s);}
window.neardupSearch=function(x){index={ids:[],links:[],sizes:[],paged:x.paged,max:x.max};
 x.groups.split('\n').forEach(function(l){if(!l)return;var p=l.split('\t');index.ids.push(p[0]);index.links.push(p[1]);index.sizes.push(+p[2]);});
 show();};
f.addEventListener('input',show);
})();
</script>"#;

/// One list page's section: the pager, the filter box, the rows of the
/// page, the pager again, and the filter's script.
pub fn section(p: &ListPage, rows: &[GroupRow], groups: usize, paged: usize) -> String {
    let mut b = pager(p, groups);
    let _ = write!(
        b,
        "<p><label for=\"filter\" class=\"note\">Filter all {groups} groups by id or URL:</label> \
         <input id=\"filter\" type=\"search\" placeholder=\"filter by id or URL\" hidden></p>\n\
         <p id=\"filter-note\" class=\"note\" role=\"status\"></p>\n\
         <table id=\"groups\" class=\"list\" data-root=\"{}\" data-paged=\"{paged}\">\
         <colgroup><col class=\"c-n\"><col class=\"c-size\"><col><col></colgroup>\
         <thead><tr><th>#</th><th>documents</th><th>kept document</th><th>URL</th></tr></thead>\n\
         <tbody>\n",
        p.root()
    );
    let first = (p.number - 1) * p.size;
    for (i, r) in rows.iter().enumerate() {
        let id = match r.page {
            Some(n) => format!(
                "<a href=\"{}groups/{n}.html\">{}</a>",
                p.root(),
                escape(&r.id)
            ),
            None => escape(&r.id),
        };
        let _ = writeln!(
            b,
            "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{id}</td><td>{}</td></tr>",
            first + i + 1,
            r.size,
            url_link(r.url.as_deref())
        );
    }
    b.push_str("</tbody></table>\n");
    if rows.is_empty() {
        b.push_str("<p>No near-duplicates.</p>\n");
    }
    b.push_str(&pager(p, groups));
    b.push_str(FILTER);
    b
}

/// `search.js`: every group's kept id, URL and size, largest first, as one
/// call of the page's `neardupSearch` (a script, so that it loads from
/// disk where a fetch would be refused). Tabs and newlines in ids and URLs
/// become spaces.
pub fn search_index(rows: &[GroupRow], paged: usize) -> String {
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    let mut groups = String::with_capacity(rows.len() * 64);
    for r in rows {
        let _ = writeln!(
            groups,
            "{}\t{}\t{}",
            clean(&r.id),
            clean(r.url.as_deref().unwrap_or("")),
            r.size
        );
    }
    let data = json!({"paged": paged, "max": MAX_MATCHES, "groups": groups});
    format!("neardupSearch({data});\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, size: usize, page: Option<usize>) -> GroupRow {
        GroupRow {
            id: id.into(),
            url: Some(format!("https://x.example/{id}")),
            size,
            page,
        }
    }

    #[test]
    fn pages_link_to_each_other() {
        assert_eq!(page_count(0, 10), 1);
        assert_eq!(page_count(21, 10), 3);
        let first = ListPage {
            number: 1,
            pages: 9,
            size: 10,
        };
        let p = pager(&first, 85);
        assert!(p.contains("Groups 1–10 of 85, page 1 of 9"), "{p}");
        assert!(
            p.contains("<a href=\"list/2.html\" rel=\"next\">next</a>"),
            "{p}"
        );
        assert!(
            p.contains("<a href=\"list/9.html\">9</a>") && p.contains(" …"),
            "{p}"
        );
        let last = ListPage { number: 9, ..first };
        let p = pager(&last, 85);
        assert!(p.contains("Groups 81–85 of 85"), "{p}");
        assert!(p.contains("<a href=\"../index.html\">1</a>"), "{p}");
        assert!(
            p.contains("<a href=\"8.html\" rel=\"prev\">previous</a>"),
            "{p}"
        );
        assert!(!p.contains("next"), "{p}");
        assert_eq!(
            pager(
                &ListPage {
                    number: 1,
                    pages: 1,
                    size: 10
                },
                3
            ),
            ""
        );
    }

    #[test]
    fn rows_are_numbered_across_pages_and_link_from_their_directory() {
        let p = ListPage {
            number: 2,
            pages: 2,
            size: 2,
        };
        let s = section(&p, &[row("c<", 2, Some(3)), row("d", 2, None)], 4, 3);
        assert!(s.contains("<td class=\"num\">3</td><td class=\"num\">2</td><td><a href=\"../groups/3.html\">c&lt;</a>"), "{s}");
        assert!(
            s.contains("<td class=\"num\">4</td><td class=\"num\">2</td><td>d</td>"),
            "{s}"
        );
        assert!(s.contains("data-root=\"../\""));
    }

    #[test]
    fn the_search_index_is_one_script_call_of_every_group() {
        let mut odd = row("a\tb", 3, Some(1));
        odd.url = None;
        let js = search_index(&[odd, row("c", 2, None)], 1);
        let data = js
            .strip_prefix("neardupSearch(")
            .and_then(|s| s.strip_suffix(");\n"))
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(data).unwrap();
        assert_eq!(v["paged"], 1);
        assert_eq!(v["groups"], "a b\t\t3\nc\thttps://x.example/c\t2\n");
    }
}
