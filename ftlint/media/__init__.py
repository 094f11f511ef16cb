"""Images in training records: their size from their own header (header.py), where a record's
media are and whether they can be read (refs.py, files.py), and the tokens a model's processor
makes of each (processors.py). A record's media plan (plan.py) is what the figures and the media
rules read: the engine never opens a media file itself."""
