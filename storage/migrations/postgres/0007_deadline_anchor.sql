-- Deadlines anchored to a time of day and allowed weekdays: the clock in minutes after local
-- midnight, the weekdays as written for players ("mon-fri"), and the timezone they are read in.
-- All three NULL: a deadline is simply the turn length from the turn's start.

ALTER TABLE matches ADD COLUMN deadline_clock INTEGER;
ALTER TABLE matches ADD COLUMN deadline_days TEXT;
ALTER TABLE matches ADD COLUMN deadline_zone TEXT;
