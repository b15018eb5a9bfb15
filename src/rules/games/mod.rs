//! One module per game, each implementing [`crate::game::Game`].

pub mod awithlaknannai;
pub mod hdk;
pub mod kilkenny;
pub mod kilkenny_eval;
mod kilkenny_geometry;
pub mod safari;
pub mod safari_eval;
