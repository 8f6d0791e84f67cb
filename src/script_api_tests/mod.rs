//! Checks of the assembled server's Lua API, as every feature registered it: the docs list
//! exactly what exists, and every number is checked before it reaches the wire.

mod docs;
mod numbers;
