//! Graph helpers of the clustering: id checks, priority ranks and a
//! symmetric adjacency (CSR) of the pairs at or above a threshold.

use crate::error::{Error, ErrorKind, Result};
use crate::table::check_doc_count;

pub(crate) fn check_id(id: u32, n: usize) -> Result<()> {
    if (id as usize) < n {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::IdOutOfRange(id)))
    }
}

/// `rank[doc]` = position of `doc` in the priority order.
pub(crate) fn ranks(n: usize, order: Option<&[u32]>) -> Result<Vec<u32>> {
    check_doc_count(n)?;
    let Some(order) = order else {
        return Ok((0..n as u32).collect());
    };
    if order.len() != n {
        return Err(Error::new(ErrorKind::LengthMismatch {
            expected: n,
            got: order.len(),
        }));
    }
    let mut rank = vec![u32::MAX; n];
    for (pos, &d) in order.iter().enumerate() {
        match rank.get_mut(d as usize) {
            Some(r) if *r == u32::MAX => *r = pos as u32,
            _ => return Err(Error::new(ErrorKind::NotAPermutation)),
        }
    }
    Ok(rank)
}

pub(crate) fn visit_order(rank: &[u32]) -> Vec<u32> {
    let mut order = vec![0u32; rank.len()];
    for (d, &r) in rank.iter().enumerate() {
        order[r as usize] = d as u32;
    }
    order
}

/// Symmetric adjacency (CSR) of the pairs at or above a threshold.
pub(crate) struct Adjacency {
    offsets: Vec<usize>,
    edges: Vec<(u32, f64)>,
}

impl Adjacency {
    pub(crate) fn new(n: usize, pairs: &[(u32, u32, f64)], threshold: f64) -> Result<Self> {
        let mut degree = vec![0usize; n + 1];
        for &(a, b, _) in pairs {
            check_id(a, n)?;
            check_id(b, n)?;
        }
        let keep = |&&(a, b, s): &&(u32, u32, f64)| a != b && s.is_finite() && s >= threshold;
        for &(a, b, _) in pairs.iter().filter(keep) {
            degree[a as usize + 1] += 1;
            degree[b as usize + 1] += 1;
        }
        for i in 0..n {
            degree[i + 1] += degree[i];
        }
        let mut fill = degree.clone();
        let mut edges = vec![(0u32, 0.0f64); degree[n]];
        for &(a, b, s) in pairs.iter().filter(keep) {
            edges[fill[a as usize]] = (b, s);
            fill[a as usize] += 1;
            edges[fill[b as usize]] = (a, s);
            fill[b as usize] += 1;
        }
        Ok(Self {
            offsets: degree,
            edges,
        })
    }

    pub(crate) fn neighbours(&self, d: u32) -> &[(u32, f64)] {
        &self.edges[self.offsets[d as usize]..self.offsets[d as usize + 1]]
    }
}
