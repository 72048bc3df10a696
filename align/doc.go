// Package align turns the decoder's temporal attention (a matrix of
// characters x encoder frames) and, optionally, the CTC head's frame
// posteriors into a strictly monotonic audio-to-text alignment in which every
// word and character of the transcript gets a start, an end and a
// confidence, and writes the result in common formats.
//
// The pieces, in pipeline order:
//
//   - normalize (subpackage): written text -> spoken words, with a map back
//     to the original tokens, and each token's other plausible readings.
//   - CTCSegment and ChooseReadings: the transcript placed over the CTC
//     posteriors; a token with several readings ("2019") gets the one the
//     posteriors around it support best.
//   - Transcript: the character sequence (spoken words joined by single
//     spaces) whose rows the attention matrix holds.
//   - MonotonicPath: dynamic programming over the attention matrix for the
//     best strictly monotonic segmentation into character spans, at an
//     upsampled frame rate.
//   - AlignText: character spans -> words with confidences; low-confidence
//     words are interpolated; spoken words are mapped back to the original
//     tokens so that every token of the transcript appears once, in order,
//     spelled as given.
//   - Calibrate: with a CTC segmentation of the same transcript, each
//     word's confidence becomes a logistic map (Calibration) of its
//     Evidence: how far the energy refinement moved its edges in noisy
//     audio, how far the attention path and the CTC segmentation put them
//     apart once both are refined, and the pause after it inside its
//     sentence; under FlagConfidence the word is StatusUncertain.
//   - SplitAtSilences and Stitch: long audio is cut into pieces at pauses and
//     the piece results are joined with their time offsets.
//   - Formats and WriteFile: JSON, CTM, Praat TextGrid, SRT, WebVTT,
//     Audacity labels and TSV.
//   - BoundaryErrors, Summarize and WordStats: boundary accuracy and how
//     well the confidence flags misplaced words against a gold alignment;
//     PlotReliability draws the confidence against the share of words
//     placed right.
//   - Plot: a PNG of the spectrogram, the attention with the chosen path and
//     the word boundaries.
//
// Times in results are seconds from the start of the audio. Frame indices
// are counted at the encoder rate (T frames) or, where stated, at the
// upsampled rate (T*upsample frames).
package align
