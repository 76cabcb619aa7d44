mod approval;
mod cancel;
mod compaction;
mod loop_guards;
mod servers;
mod support;
mod turns;
