mod approval;
mod cancel;
mod compaction;
mod delegate;
mod loop_guards;
mod servers;
mod support;
mod turns;
