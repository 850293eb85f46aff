//! Facilities: registration and who may register (in `registration`), the rejections of spec
//! section 7 (in `validation`), edits, their guards and archiving (in `editing`), and the lists
//! with what each caller sees (in `lists`).

mod editing;
mod lists;
mod registration;
mod validation;
