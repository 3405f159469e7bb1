-- A league's deadline anchor, given to every match it schedules (as matches.deadline_* are):
-- the clock in minutes after local midnight, the weekdays as written ("mon-fri"), and the
-- timezone. All three NULL: deadlines are simply the turn length from the turn's start.

ALTER TABLE leagues ADD COLUMN deadline_clock INTEGER;
ALTER TABLE leagues ADD COLUMN deadline_days TEXT;
ALTER TABLE leagues ADD COLUMN deadline_zone TEXT;
