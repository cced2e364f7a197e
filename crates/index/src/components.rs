//! Union-find clustering (connected components), kept to compare against the
//! non-chaining greedy clustering of [`Clusterer::cluster`].

use crate::cluster::{Assignment, Clusterer, Clustering};
use crate::error::Result;
use crate::graph::{ranks, Adjacency};

impl Clusterer {
    /// Union-find clustering (connected components of the pairs at or above
    /// the threshold), for comparison: the representative is the component's
    /// earliest document in `order`. Chains through bridging documents.
    pub fn connected_components(
        &self,
        n: usize,
        order: Option<&[u32]>,
        pairs: &[(u32, u32, f64)],
    ) -> Result<Clustering> {
        let rank = ranks(n, order)?;
        let adj = Adjacency::new(n, pairs, self.cfg.threshold)?;
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(p: &mut [u32], mut x: u32) -> u32 {
            while p[x as usize] != x {
                let gp = p[p[x as usize] as usize];
                p[x as usize] = gp;
                x = gp;
            }
            x
        }
        for d in 0..n as u32 {
            for &(e, _) in adj.neighbours(d) {
                let (a, b) = (find(&mut parent, d), find(&mut parent, e));
                if a != b {
                    // The root is always the member of lowest rank.
                    if rank[a as usize] < rank[b as usize] {
                        parent[b as usize] = a;
                    } else {
                        parent[a as usize] = b;
                    }
                }
            }
        }
        let assignments = (0..n as u32)
            .map(|d| {
                let root = find(&mut parent, d);
                let strongest = adj
                    .neighbours(d)
                    .iter()
                    .map(|e| e.1)
                    .fold(f64::NAN, f64::max);
                if root == d {
                    Assignment {
                        representative: d,
                        duplicate_of: None,
                        similarity: 1.0,
                    }
                } else {
                    Assignment {
                        representative: root,
                        duplicate_of: Some(root),
                        similarity: strongest,
                    }
                }
            })
            .collect();
        Ok(Clustering {
            assignments,
            contained: Vec::new(),
        })
    }
}
