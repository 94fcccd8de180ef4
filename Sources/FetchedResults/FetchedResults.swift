// The fetched-results engine; see issue 3.
