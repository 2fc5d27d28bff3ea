// placeholder until the target is written
