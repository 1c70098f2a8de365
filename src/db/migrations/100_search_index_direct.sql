-- Full-text search entries go straight into the index as each message is stored, instead of
-- collecting in the GIN index's pending list. A full pending list (4 MB by default) is merged
-- into the index by whichever insert finds it full: that send's transaction then takes
-- 100 ms or more, and its commit waits on the WAL the merge wrote, which held up every send
-- batched behind it (the benchmark's send p99 at half rate went from about 20 ms to over
-- 100 ms whenever a merge fell in its window). Inserting directly costs the same on average
-- and never all at once.
ALTER INDEX messages_search SET (fastupdate = off);
