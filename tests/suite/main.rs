//! Every integration test in one binary: the library and its dependencies
//! are linked once instead of once per file, which is most of the build
//! time of the test suite. Each file is a module named after its subject.

mod common;

mod awithlaknannai;
mod barrier;
mod bench;
mod board;
mod cancels;
mod certificate;
mod chance_search;
mod contract;
mod control;
mod docs;
mod fuzz;
mod hdk;
mod kilkenny;
mod layers;
mod live;
mod multiseat;
mod network;
mod new_game;
mod node_limit;
mod os;
mod paths;
mod perft;
mod pipelines;
mod promises;
mod protocol;
mod protocol_doc;
mod random_play;
mod referee;
mod referee_faults;
mod referee_step;
mod safari;
mod safari_certificate;
mod selfplay;
mod shards;
mod solver;
mod sprt;
mod table_files;
mod tables;
mod training;
