-- Commands typed in a match thread find their match by the thread's id, however many matches the
-- server has had since.

CREATE INDEX matches_channel ON matches (channel_id);
