//! One module per game, each implementing [`crate::game::Game`].

pub mod awithlaknannai;
pub mod hdk;
pub mod kilkenny;
pub mod safari;
