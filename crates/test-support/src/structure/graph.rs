//! The module graph of one crate and the two rules checked on it: no import cycle between
//! top-level modules, and (when floors are given) no import from a lower floor to a higher one.
//! Every finding names the modules and the source lines that make it, so a failing test says
//! exactly which `use` to move.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::PathBuf;

/// Where an edge was written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct EdgeSite {
    /// The file, relative to the tree the crate was read from.
    pub file: PathBuf,
    /// The line it is on (1-based).
    pub line: usize,
    /// The path as written (`crate::runtime::ServerState`).
    pub path: String,
}

impl fmt::Display for EdgeSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} `{}`", self.file.display(), self.line, self.path)
    }
}

/// Top-level modules and the imports between them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleGraph {
    nodes: BTreeSet<String>,
    /// `(from, to)` → every place it is written.
    edges: BTreeMap<(String, String), Vec<EdgeSite>>,
}

impl ModuleGraph {
    /// A graph of `nodes` with no edges yet.
    pub fn new(nodes: BTreeSet<String>) -> Self {
        ModuleGraph {
            nodes,
            edges: BTreeMap::new(),
        }
    }

    /// Records an import of `to` from `from` (both top-level modules); one site per line.
    pub fn add_edge(&mut self, from: &str, to: &str, site: EdgeSite) {
        self.nodes.insert(from.to_owned());
        self.nodes.insert(to.to_owned());
        let sites = self
            .edges
            .entry((from.to_owned(), to.to_owned()))
            .or_default();
        if !sites
            .iter()
            .any(|s| s.file == site.file && s.line == site.line)
        {
            sites.push(site);
        }
    }

    /// Every top-level module, imported or not.
    pub fn nodes(&self) -> &BTreeSet<String> {
        &self.nodes
    }

    /// Every `(from, to)` pair.
    pub fn edges(&self) -> impl Iterator<Item = (&str, &str)> {
        self.edges.keys().map(|(a, b)| (a.as_str(), b.as_str()))
    }

    /// Where `from` imports `to` (empty when it does not).
    pub fn sites(&self, from: &str, to: &str) -> &[EdgeSite] {
        self.edges
            .get(&(from.to_owned(), to.to_owned()))
            .map_or(&[], Vec::as_slice)
    }

    fn successors(&self, node: &str) -> impl Iterator<Item = &str> {
        self.edges
            .keys()
            .filter(move |(a, _)| a == node)
            .map(|(_, b)| b.as_str())
    }

    /// One cycle per strongly connected component of more than one module: the shortest cycle
    /// through the component's first module (by name), with the sites of each edge.
    pub fn cycles(&self) -> Vec<Cycle> {
        self.components()
            .into_iter()
            .filter(|c| c.len() > 1)
            .filter_map(|component| {
                let start = component.iter().next()?.clone();
                let path = self.shortest_cycle(&start, &component)?;
                let edges = path
                    .iter()
                    .zip(path.iter().cycle().skip(1))
                    .map(|(a, b)| CycleEdge {
                        from: a.clone(),
                        to: b.clone(),
                        sites: self.sites(a, b).to_vec(),
                    })
                    .collect();
                Some(Cycle {
                    modules: path,
                    edges,
                    component,
                })
            })
            .collect()
    }

    /// `start → … → start` inside `within` by breadth-first search; the modules without the
    /// repeated `start`.
    fn shortest_cycle(&self, start: &str, within: &BTreeSet<String>) -> Option<Vec<String>> {
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            for next in self.successors(node).filter(|n| within.contains(*n)) {
                if next == start {
                    let mut path = vec![node.to_owned()];
                    let mut at = node;
                    while at != start {
                        at = parent[at];
                        path.push(at.to_owned());
                    }
                    path.reverse();
                    return Some(path);
                }
                if !parent.contains_key(next) {
                    parent.insert(next, node);
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// Strongly connected components (Tarjan), each as a set of modules.
    fn components(&self) -> Vec<BTreeSet<String>> {
        struct Tarjan<'g> {
            graph: &'g ModuleGraph,
            index: BTreeMap<&'g str, usize>,
            low: BTreeMap<&'g str, usize>,
            stack: Vec<&'g str>,
            on_stack: BTreeSet<&'g str>,
            out: Vec<BTreeSet<String>>,
        }
        impl<'g> Tarjan<'g> {
            fn visit(&mut self, node: &'g str) {
                let n = self.index.len();
                self.index.insert(node, n);
                self.low.insert(node, n);
                self.stack.push(node);
                self.on_stack.insert(node);
                for next in self.graph.successors(node) {
                    if !self.index.contains_key(next) {
                        self.visit(next);
                        let low = self.low[node].min(self.low[next]);
                        self.low.insert(node, low);
                    } else if self.on_stack.contains(next) {
                        let low = self.low[node].min(self.index[next]);
                        self.low.insert(node, low);
                    }
                }
                if self.low[node] == self.index[node] {
                    let mut component = BTreeSet::new();
                    while let Some(member) = self.stack.pop() {
                        self.on_stack.remove(member);
                        component.insert(member.to_owned());
                        if member == node {
                            break;
                        }
                    }
                    self.out.push(component);
                }
            }
        }
        let mut tarjan = Tarjan {
            graph: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            out: Vec::new(),
        };
        for node in &self.nodes {
            if !tarjan.index.contains_key(node.as_str()) {
                tarjan.visit(node);
            }
        }
        tarjan.out
    }

    /// Every way the graph breaks `floors`: an import from a lower floor to a higher one (not
    /// allowed by name), a module no floor places, a floor naming a module that does not exist,
    /// and an allowance no import needs any more.
    pub fn floor_violations(&self, floors: &Floors) -> Vec<FloorViolation> {
        let level: BTreeMap<&str, (usize, &str)> = floors
            .floors
            .iter()
            .enumerate()
            .flat_map(|(i, (name, modules))| modules.iter().map(move |m| (*m, (i, *name))))
            .collect();
        let mut found = Vec::new();
        for module in &self.nodes {
            if !level.contains_key(module.as_str()) {
                found.push(FloorViolation::Unplaced {
                    module: module.clone(),
                });
            }
        }
        for module in level.keys() {
            if !self.nodes.contains(*module) {
                found.push(FloorViolation::UnknownModule {
                    module: (*module).to_owned(),
                });
            }
        }
        for (from, to) in self.edges() {
            let (Some(&(low, low_name)), Some(&(high, high_name))) =
                (level.get(from), level.get(to))
            else {
                continue;
            };
            let allowed = floors.allowed.iter().any(|a| a.from == from && a.to == to);
            if high > low && !allowed {
                found.push(FloorViolation::Upward {
                    from: from.to_owned(),
                    from_floor: low_name.to_owned(),
                    to: to.to_owned(),
                    to_floor: high_name.to_owned(),
                    sites: self.sites(from, to).to_vec(),
                });
            }
        }
        for allowance in &floors.allowed {
            let upward = match (level.get(allowance.from), level.get(allowance.to)) {
                (Some(&(low, _)), Some(&(high, _))) => high > low,
                _ => false,
            };
            if !upward || self.sites(allowance.from, allowance.to).is_empty() {
                found.push(FloorViolation::StaleAllowance {
                    from: allowance.from.to_owned(),
                    to: allowance.to.to_owned(),
                });
            }
        }
        found
    }
}

/// One edge of a reported cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleEdge {
    /// The importing module.
    pub from: String,
    /// The imported module.
    pub to: String,
    /// Every place the import is written.
    pub sites: Vec<EdgeSite>,
}

/// An import cycle: `modules[0] → modules[1] → … → modules[0]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The modules on the cycle, in order.
    pub modules: Vec<String>,
    /// The edges that close the cycle, with where each is written.
    pub edges: Vec<CycleEdge>,
    /// Every module of the strongly connected component the cycle was found in.
    pub component: BTreeSet<String>,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = self.modules.first().map_or("", String::as_str);
        write!(f, "import cycle: {} → {first}", self.modules.join(" → "))?;
        if self.component.len() > self.modules.len() {
            let all: Vec<&str> = self.component.iter().map(String::as_str).collect();
            write!(f, " (part of a cycle through {})", all.join(", "))?;
        }
        for edge in &self.edges {
            write!(f, "\n  {} → {}:", edge.from, edge.to)?;
            for site in &edge.sites {
                write!(f, "\n    {site}")?;
            }
        }
        Ok(())
    }
}

/// The floors of a crate, lowest first, and the upward imports allowed by name (each with the
/// reason it is tolerated).
#[derive(Debug, Clone, Default)]
pub struct Floors {
    /// `(floor name, its modules)`, lowest floor first. Modules of one floor may import each
    /// other (cycles are checked separately).
    pub floors: Vec<(&'static str, Vec<&'static str>)>,
    /// Upward imports tolerated, each with its reason.
    pub allowed: Vec<AllowedUpward>,
}

/// An upward import tolerated for a stated reason.
#[derive(Debug, Clone)]
pub struct AllowedUpward {
    /// The importing module (lower floor).
    pub from: &'static str,
    /// The imported module (higher floor).
    pub to: &'static str,
    /// Why the import is tolerated for now.
    pub reason: &'static str,
}

/// A way a crate breaks its floors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FloorViolation {
    /// A module imports one on a higher floor.
    Upward {
        /// The importing module.
        from: String,
        /// Its floor.
        from_floor: String,
        /// The imported module.
        to: String,
        /// Its floor.
        to_floor: String,
        /// Where the import is written.
        sites: Vec<EdgeSite>,
    },
    /// A top-level module that no floor lists.
    Unplaced {
        /// The module's name.
        module: String,
    },
    /// The floor table names a module the crate does not have.
    UnknownModule {
        /// The name in the table.
        module: String,
    },
    /// An allowed upward import that no longer exists.
    StaleAllowance {
        /// The allowance's importing module.
        from: String,
        /// The allowance's imported module.
        to: String,
    },
}

impl fmt::Display for FloorViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FloorViolation::Upward {
                from,
                from_floor,
                to,
                to_floor,
                sites,
            } => {
                write!(
                    f,
                    "upward import: {from} ({from_floor}) → {to} ({to_floor}); a lower floor \
                     never imports a higher one — move the item down or invert the dependency"
                )?;
                for site in sites {
                    write!(f, "\n    {site}")?;
                }
                Ok(())
            }
            FloorViolation::Unplaced { module } => write!(
                f,
                "module `{module}` is on no floor; add it to the floor table (and to \
                 docs/architecture.md)"
            ),
            FloorViolation::UnknownModule { module } => write!(
                f,
                "the floor table names `{module}`, which is not a top-level module of the crate"
            ),
            FloorViolation::StaleAllowance { from, to } => write!(
                f,
                "the allowance {from} → {to} is no longer needed (no such upward import); \
                 remove it"
            ),
        }
    }
}

#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;
