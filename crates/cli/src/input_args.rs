//! How the inputs are read and which copy is kept: options shared by
//! `dedup` and `report` (which must read the inputs as `dedup` did).

use anyhow::{anyhow, Result};
use clap::Args;
use neardup::extract::{Extractor, Mode};
use neardup::io::JsonlFields;
use neardup::KeepPolicy;

/// Input reading and keep-policy options.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Which copy of a group is kept: `first` (input order), `longest`
    /// (longest main text), or `url:PATTERN` (URLs matching the glob first).
    #[arg(long, default_value = "first", value_name = "POLICY")]
    pub keep: String,
    /// Fingerprint all visible text instead of the extracted main text.
    #[arg(long)]
    pub all_text: bool,
    /// JSONL field holding the document id.
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,
    /// JSONL field holding plain text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_field: String,
    /// JSONL field holding HTML.
    #[arg(long, default_value = "html", value_name = "NAME")]
    pub html_field: String,
}

impl InputArgs {
    /// The keep policy.
    pub fn keep_policy(&self) -> Result<KeepPolicy> {
        self.keep
            .parse()
            .map_err(|e: String| anyhow!("--keep: {e}"))
    }

    /// The JSONL field names.
    pub fn jsonl_fields(&self) -> JsonlFields {
        JsonlFields {
            id: self.id_field.clone(),
            text: self.text_field.clone(),
            html: self.html_field.clone(),
            ..JsonlFields::default()
        }
    }

    /// The extractor: main text, or all visible text.
    pub fn extractor(&self) -> Extractor {
        Self::extractor_for(self.all_text)
    }

    /// The extractor of main text, or of all visible text with `all_text`.
    pub fn extractor_for(all_text: bool) -> Extractor {
        let mode = if all_text { Mode::AllText } else { Mode::Main };
        Extractor::builder().mode(mode).build()
    }
}
