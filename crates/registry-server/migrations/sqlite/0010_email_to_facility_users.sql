-- A schedule sent to "the facility's active users" (no `to` given) finds them again when it is
-- sent: `recipients` keeps who they were when it was scheduled, which the answer showed.
ALTER TABLE email_schedules ADD COLUMN to_facility_users INTEGER NOT NULL DEFAULT 0
    CHECK (to_facility_users IN (0, 1));
