//! A radix tree with the exact shape and iteration orders of MiniSearch 7's
//! `SearchableMap`, so prefix and fuzzy matches come out in the order the reference scores
//! them (equal scores keep that order after the stable sort).
//!
//! Keys are UTF-16 code units, as JS strings are. Each node is an insertion-ordered list of
//! edges; the empty edge holds the value (MiniSearch's `LEAF`). Invariants kept from the
//! original: the edges of one node start with distinct units; splitting an edge appends
//! the new intermediate edge and removes the old one (so it moves to the end); prefix
//! iteration walks edges last-to-first, fuzzy search first-to-last.

/// Where an edge leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Node(usize),
    Leaf(usize),
}

type Edges = Vec<(Vec<u16>, Slot)>;

/// The tree: node 0 is the root; values live in `values`.
#[derive(Debug, Default)]
pub struct RadixMap<V> {
    nodes: Vec<Edges>,
    values: Vec<V>,
}

impl<V> RadixMap<V> {
    pub fn new() -> Self {
        Self {
            nodes: vec![Vec::new()],
            values: Vec::new(),
        }
    }

    /// The value at `key`, created with `init` when absent (`SearchableMap.fetch`).
    pub fn fetch(&mut self, key: &[u16], init: impl FnOnce() -> V) -> &mut V {
        let node = self.create_path(key);
        let existing = self.nodes[node].iter().find_map(|(k, s)| match s {
            Slot::Leaf(v) if k.is_empty() => Some(*v),
            _ => None,
        });
        let idx = match existing {
            Some(v) => v,
            None => {
                self.values.push(init());
                let v = self.values.len() - 1;
                self.nodes[node].push((Vec::new(), Slot::Leaf(v)));
                v
            }
        };
        &mut self.values[idx]
    }

    fn new_node(&mut self, edges: Edges) -> usize {
        self.nodes.push(edges);
        self.nodes.len() - 1
    }

    /// `createPath`: the node at `key`, splitting an edge where `key` leaves it.
    fn create_path(&mut self, key: &[u16]) -> usize {
        let mut node = 0;
        let mut pos = 0;
        'outer: while pos < key.len() {
            for i in 0..self.nodes[node].len() {
                let (k, slot) = &self.nodes[node][i];
                let Slot::Node(child) = *slot else { continue };
                if k.is_empty() || k[0] != key[pos] {
                    continue;
                }
                let len = (key.len() - pos).min(k.len());
                let mut offset = 1;
                while offset < len && key[pos + offset] == k[offset] {
                    offset += 1;
                }
                if offset == k.len() {
                    node = child;
                } else {
                    let rest = k[offset..].to_vec();
                    let intermediate = self.new_node(vec![(rest, Slot::Node(child))]);
                    let edges = &mut self.nodes[node];
                    edges.push((key[pos..pos + offset].to_vec(), Slot::Node(intermediate)));
                    edges.remove(i);
                    node = intermediate;
                }
                pos += offset;
                continue 'outer;
            }
            let child = self.new_node(Vec::new());
            self.nodes[node].push((key[pos..].to_vec(), Slot::Node(child)));
            return child;
        }
        node
    }

    fn leaf(&self, node: usize) -> Option<&V> {
        self.nodes[node].iter().find_map(|(k, s)| match s {
            Slot::Leaf(v) if k.is_empty() => Some(&self.values[*v]),
            _ => None,
        })
    }

    /// The value at exactly `key`.
    pub fn get(&self, key: &[u16]) -> Option<&V> {
        let mut node = 0;
        let mut rest = key;
        'down: while !rest.is_empty() {
            for (k, s) in &self.nodes[node] {
                if let Slot::Node(child) = s
                    && !k.is_empty()
                    && rest.starts_with(k)
                {
                    node = *child;
                    rest = &rest[k.len()..];
                    continue 'down;
                }
            }
            return None;
        }
        self.leaf(node)
    }

    /// Every `(key, value)` starting with `prefix`, in `atPrefix(prefix).entries()` order.
    pub fn with_prefix(&self, prefix: &[u16]) -> Vec<(Vec<u16>, &V)> {
        let mut out = Vec::new();
        let mut node = 0;
        let mut rest = prefix;
        'down: while !rest.is_empty() {
            for (k, s) in &self.nodes[node] {
                if let Slot::Node(child) = s
                    && !k.is_empty()
                    && rest.starts_with(k)
                {
                    node = *child;
                    rest = &rest[k.len()..];
                    continue 'down;
                }
            }
            // The prefix ends inside an edge: a one-edge view of the remainder.
            for (k, s) in &self.nodes[node] {
                if !k.is_empty() && k.starts_with(rest) {
                    let view = vec![(k[rest.len()..].to_vec(), *s)];
                    self.walk_reverse(&view, prefix.to_vec(), &mut out);
                    return out;
                }
            }
            return out;
        }
        let edges = self.nodes[node].clone();
        self.walk_reverse(&edges, prefix.to_vec(), &mut out);
        out
    }

    /// `TreeIterator`: depth first, each node's edges last to first.
    fn walk_reverse<'a>(
        &'a self,
        edges: &Edges,
        prefix: Vec<u16>,
        out: &mut Vec<(Vec<u16>, &'a V)>,
    ) {
        for (k, s) in edges.iter().rev() {
            match s {
                Slot::Leaf(v) => out.push((prefix.clone(), &self.values[*v])),
                Slot::Node(child) => {
                    let mut p = prefix.clone();
                    p.extend_from_slice(k);
                    self.walk_reverse(&self.nodes[*child], p, out);
                }
            }
        }
    }

    /// Every `(key, value, distance)` within `max` edits of `query` (`fuzzyGet`), in the
    /// reference's discovery order.
    pub fn fuzzy(&self, query: &[u16], max: usize) -> Vec<(Vec<u16>, &V, usize)> {
        let n = query.len() + 1;
        let rows = n + max;
        let mut matrix = vec![max + 1; rows * n];
        for (j, cell) in matrix.iter_mut().enumerate().take(n) {
            *cell = j;
        }
        for i in 1..rows {
            matrix[i * n] = i;
        }
        let mut search = Fuzzy {
            query,
            max,
            n,
            rows,
            matrix,
            out: Vec::new(),
        };
        search.recurse(self, 0, 1, Vec::new());
        search.out
    }
}

/// The state of one fuzzy search: a banded Levenshtein matrix shared across the walk.
struct Fuzzy<'q, 'a, V> {
    query: &'q [u16],
    max: usize,
    n: usize,
    rows: usize,
    matrix: Vec<usize>,
    out: Vec<(Vec<u16>, &'a V, usize)>,
}

impl<'a, V> Fuzzy<'_, 'a, V> {
    fn recurse(&mut self, map: &'a RadixMap<V>, node: usize, m: usize, prefix: Vec<u16>) {
        let (n, max) = (self.n, self.max);
        'edge: for (key, slot) in &map.nodes[node] {
            let child = match slot {
                Slot::Leaf(v) => {
                    // Rows past the matrix never match (the reference reads `undefined`).
                    if m <= self.rows {
                        let distance = self.matrix[m * n - 1];
                        if distance <= max {
                            self.out.push((prefix.clone(), &map.values[*v], distance));
                        }
                    }
                    continue;
                }
                Slot::Node(c) => *c,
            };
            let mut i = m;
            for &unit in key {
                if i >= self.rows {
                    continue 'edge;
                }
                let this = n * i;
                let prev = this - n;
                let mut min = self.matrix[this];
                let jmin = i.saturating_sub(max + 1);
                let jmax = (n - 1).min(i + max);
                for j in jmin..jmax {
                    let different = usize::from(unit != self.query[j]);
                    let rpl = self.matrix[prev + j] + different;
                    let del = self.matrix[prev + j + 1] + 1;
                    let ins = self.matrix[this + j] + 1;
                    let dist = rpl.min(del).min(ins);
                    self.matrix[this + j + 1] = dist;
                    min = min.min(dist);
                }
                if min > max {
                    continue 'edge;
                }
                i += 1;
            }
            let mut p = prefix.clone();
            p.extend_from_slice(key);
            self.recurse(map, child, i, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn map(words: &[&str]) -> RadixMap<String> {
        let mut m = RadixMap::new();
        for w in words {
            *m.fetch(&k(w), String::new) = (*w).to_string();
        }
        m
    }

    #[test]
    fn prefix_and_fuzzy_orders_follow_searchable_map() {
        // Orders taken from MiniSearch 7.2.0's SearchableMap on the same inserts.
        let m = map(&[
            "unicorn",
            "universe",
            "university",
            "unique",
            "hello",
            "uni",
        ]);
        let keys: Vec<String> = m
            .with_prefix(&k("uni"))
            .into_iter()
            .map(|(key, _)| String::from_utf16_lossy(&key))
            .collect();
        assert_eq!(keys, ["uni", "unique", "university", "universe", "unicorn"]);
        assert_eq!(m.get(&k("universe")).map(String::as_str), Some("universe"));
        assert_eq!(m.get(&k("univ")), None);
        let m = map(&["hello", "hell", "ciao", "hallo"]);
        let fuzzy: Vec<(String, usize)> = m
            .fuzzy(&k("hallo"), 2)
            .into_iter()
            .map(|(key, _, d)| (String::from_utf16_lossy(&key), d))
            .collect();
        assert_eq!(
            fuzzy,
            [("hello".into(), 1), ("hell".into(), 2), ("hallo".into(), 0)]
        );
    }
}
