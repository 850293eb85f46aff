//! The types of `store::equipment` (the storage interface) that its backends' queries (`sql/`)
//! take and return.

/// Which of a facility's live equipment a list shows.
#[derive(Debug, Clone, Default)]
pub struct EquipmentFilter {
    pub equipment_type_id: Option<String>,
    pub active: Option<bool>,
    /// Case- and accent-insensitive substring of one of manufacturer, model, serial or patrimonial number, or
    /// localization.
    pub q: Option<String>,
}
