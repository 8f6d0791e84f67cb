//! The per-model table (vehicles.md: "the server holds a per-model seat table"; the
//! classes, trains and carriages, RC models and default sirens): `assets/vehicles.tsv`,
//! cut from the shared data table `vehicles.tsv` (its README gives the sources and the
//! choices), parsed once when the plugin is built, so a bad table stops the start.

use bevy_ecs::prelude::*;

use dlmp_protocol::vehicle::sync::MODELS;

const SOURCE: &str = include_str!("../../../assets/vehicles.tsv");
const SPEEDS: &str = include_str!("../../../assets/vehicle_speeds.tsv");

/// What kind of vehicle a model is (the table's `class`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VehicleClass {
    Car,
    MonsterTruck,
    QuadBike,
    Motorbike,
    Bicycle,
    Boat,
    Helicopter,
    Plane,
    Train,
    Trailer,
    Rc,
}

impl VehicleClass {
    fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "car" => VehicleClass::Car,
            "monster_truck" => VehicleClass::MonsterTruck,
            "quad_bike" => VehicleClass::QuadBike,
            "motorbike" => VehicleClass::Motorbike,
            "bicycle" => VehicleClass::Bicycle,
            "boat" => VehicleClass::Boat,
            "helicopter" => VehicleClass::Helicopter,
            "plane" => VehicleClass::Plane,
            "train" => VehicleClass::Train,
            "trailer" => VehicleClass::Trailer,
            "rc" => VehicleClass::Rc,
            _ => return None,
        })
    }

    /// The word of the table and of the console.
    pub fn name(self) -> &'static str {
        match self {
            VehicleClass::Car => "car",
            VehicleClass::MonsterTruck => "monster_truck",
            VehicleClass::QuadBike => "quad_bike",
            VehicleClass::Motorbike => "motorbike",
            VehicleClass::Bicycle => "bicycle",
            VehicleClass::Boat => "boat",
            VehicleClass::Helicopter => "helicopter",
            VehicleClass::Plane => "plane",
            VehicleClass::Train => "train",
            VehicleClass::Trailer => "trailer",
            VehicleClass::Rc => "rc",
        }
    }
}

/// The carriage models (569, 570, 590): part of a train, never spawned on their own.
pub const CARRIAGES: [u16; 3] = [569, 570, 590];

/// The seats of a train's locomotive before its first carriage (driver + 5).
pub const LOCOMOTIVE_SEATS: u8 = 6;
/// Passenger seats per carriage.
pub const CARRIAGE_SEATS: u8 = 5;
/// The extra enter distance per carriage up to and including the seat's, m.
pub const CARRIAGE_LENGTH: f32 = 25.0;

/// One model's row.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    pub model: u16,
    pub name: String,
    pub class: VehicleClass,
    /// Seats including the driver; 0 = nobody boards it (RC models, trailers, carriages).
    pub seats: u8,
    /// A siren by default (VehicleParams "Defaults").
    pub siren: bool,
    /// The game's top speed of the model's handling (`max_velocity`), km/h
    /// (`assets/vehicle_speeds.tsv`).
    pub top_speed_kmh: f32,
}

impl ModelInfo {
    /// A locomotive (449, 537, 538): it stands for its whole train.
    pub fn is_train(&self) -> bool {
        self.class == VehicleClass::Train && !CARRIAGES.contains(&self.model)
    }

    /// A carriage model, never spawned alone.
    pub fn is_carriage(&self) -> bool {
        CARRIAGES.contains(&self.model)
    }

    /// Whether `create_vehicle` takes the model.
    pub fn is_spawnable(&self) -> bool {
        !self.is_carriage()
    }

    /// The carriages a seat is behind (vehicles.md VehicleEnter: "plus 25 m for every
    /// carriage up to and including the seat's"); 0 off trains and in the locomotive.
    pub fn carriages_to(&self, seat: u8) -> u8 {
        if !self.is_train() || seat < LOCOMOTIVE_SEATS {
            return 0;
        }
        (seat - LOCOMOTIVE_SEATS) / CARRIAGE_SEATS + 1
    }
}

/// The model table, by model id (400..=611).
#[derive(Resource, Debug, Clone)]
pub struct VehicleModels {
    rows: Vec<ModelInfo>,
}

impl VehicleModels {
    /// The shipped table.
    ///
    /// # Panics
    /// If `assets/vehicles.tsv` does not parse (a broken build, caught by its unit test).
    pub fn load() -> Self {
        let mut models = parse(SOURCE).unwrap_or_else(|e| panic!("assets/vehicles.tsv: {e}"));
        speeds(SPEEDS, &mut models).unwrap_or_else(|e| panic!("assets/vehicle_speeds.tsv: {e}"));
        models
    }

    /// The row of `model`, if it is a vehicle model.
    pub fn get(&self, model: u16) -> Option<&ModelInfo> {
        let i = model.checked_sub(*MODELS.start())? as usize;
        self.rows.get(i)
    }

    /// The row whose name is `name`, ignoring ASCII case (the names are ASCII and unique
    /// that way; a unit test keeps them so).
    pub fn by_name(&self, name: &str) -> Option<&ModelInfo> {
        self.rows.iter().find(|r| r.name.eq_ignore_ascii_case(name))
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl Default for VehicleModels {
    fn default() -> Self {
        Self::load()
    }
}

/// A table of `model name game_name class seats has_siren_by_default` rows after a header,
/// one row for every model of 400..=611 in order.
fn parse(text: &str) -> Result<VehicleModels, String> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let line_no = n + 1;
        let cols: Vec<&str> = line.split('\t').collect();
        let [model, name, _game, class, seats, siren, ..] = cols[..] else {
            return Err(format!("line {line_no}: fewer than 6 columns"));
        };
        let model: u16 = model
            .parse()
            .map_err(|_| format!("line {line_no}: model {model:?} is not a number"))?;
        let expected = MODELS.start() + rows.len() as u16;
        if model != expected {
            return Err(format!(
                "line {line_no}: model {model}, expected {expected}"
            ));
        }
        let class = VehicleClass::parse(class)
            .ok_or_else(|| format!("line {line_no}: unknown class {class:?}"))?;
        let seats: u8 = seats
            .parse()
            .map_err(|_| format!("line {line_no}: seats {seats:?} is not a number"))?;
        let siren = match siren {
            "0" => false,
            "1" => true,
            other => return Err(format!("line {line_no}: siren {other:?} is not 0 or 1")),
        };
        rows.push(ModelInfo {
            model,
            name: name.to_owned(),
            class,
            seats,
            siren,
            top_speed_kmh: 0.0,
        });
    }
    if rows.len() != MODELS.len() {
        return Err(format!(
            "{} models, expected {} (400..=611)",
            rows.len(),
            MODELS.len()
        ));
    }
    Ok(VehicleModels { rows })
}

/// Fills each model's top speed from a `model handling_id max_velocity` table with a row for
/// every model.
fn speeds(text: &str, models: &mut VehicleModels) -> Result<(), String> {
    let mut filled = 0;
    for (n, line) in text.lines().enumerate().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [model, _, speed, ..] = cols[..] else {
            return Err(format!("line {}: fewer than 3 columns", n + 1));
        };
        let model: u16 = model
            .parse()
            .map_err(|_| format!("line {}: model {model:?} is not a number", n + 1))?;
        let speed: f32 = speed
            .parse()
            .ok()
            .filter(|s: &f32| s.is_finite() && *s > 0.0)
            .ok_or_else(|| format!("line {}: max_velocity {speed:?}", n + 1))?;
        let i = model
            .checked_sub(*MODELS.start())
            .map(usize::from)
            .filter(|&i| i < models.rows.len())
            .ok_or_else(|| format!("line {}: model {model} is not a vehicle model", n + 1))?;
        models.rows[i].top_speed_kmh = speed;
        filled += 1;
    }
    if filled != models.rows.len() {
        return Err(format!("{filled} models, expected {}", models.rows.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_ascii_and_unique_ignoring_case() {
        let m = VehicleModels::load();
        for row in &m.rows {
            assert!(row.name.is_ascii(), "{}", row.name);
            assert_eq!(
                m.by_name(&row.name.to_ascii_uppercase()).map(|r| r.model),
                Some(row.model)
            );
        }
        assert!(m.by_name("no such car").is_none());
    }

    #[test]
    fn the_table_holds_every_model_with_the_pages_seats() {
        let m = VehicleModels::load();
        assert_eq!(m.len(), 212);
        assert_eq!(
            m.get(400).map(|r| (r.seats, r.class)),
            Some((4, VehicleClass::Car))
        );
        for (model, seats) in [(537, 21), (538, 21), (449, 6), (441, 0), (594, 0), (569, 0)] {
            assert_eq!(m.get(model).map(|r| r.seats), Some(seats), "{model}");
        }
        assert!(m.get(537).is_some_and(ModelInfo::is_train));
        assert!(
            m.get(570)
                .is_some_and(|r| r.is_carriage() && !r.is_spawnable())
        );
        assert!(m.get(407).is_some_and(|r| r.siren));
        assert!(m.get(432).is_some_and(|r| !r.siren));
        assert!(m.get(399).is_none() && m.get(612).is_none());
    }

    #[test]
    fn carriage_seats_count_their_carriages() {
        let m = VehicleModels::load();
        let freight = m.get(537).cloned().unwrap_or_else(|| unreachable!());
        assert_eq!(
            [0, 5, 6, 10, 11, 15, 16, 20].map(|s| freight.carriages_to(s)),
            [0, 0, 1, 1, 2, 2, 3, 3]
        );
        let car = m.get(400).cloned().unwrap_or_else(|| unreachable!());
        assert_eq!(car.carriages_to(3), 0);
    }

    #[test]
    fn a_bad_row_is_an_error_naming_the_line() {
        let head = "model\tname\tgame_name\tclass\tseats\thas_siren_by_default\n";
        assert!(
            parse(&format!("{head}400\tx\tx\tspaceship\t4\t0\n"))
                .unwrap_err()
                .contains("line 2")
        );
        assert!(
            parse(&format!("{head}401\tx\tx\tcar\t4\t0\n"))
                .unwrap_err()
                .contains("expected 400")
        );
        assert!(
            parse(&format!("{head}400\tx\tx\tcar\t4\t0\n"))
                .unwrap_err()
                .contains("212")
        );
    }
}
