-- A schedule sent to "the facility's active users" (no `to` given) finds them again when it is
-- sent: `recipients` keeps who they were when it was scheduled, which the answer showed.
ALTER TABLE email_schedules ADD COLUMN to_facility_users boolean NOT NULL DEFAULT false;
