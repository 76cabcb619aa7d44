mod approval;
mod cancel;
mod loop_guards;
mod servers;
mod support;
mod turns;
